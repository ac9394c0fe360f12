import type {DeadlineRisk} from '../core/deadline-risk.js';
import type {Level, Snapshot} from '../core/types.js';
import type {SchedulerState} from './types.js';

// What a scheduler shows of its job, in its own words: the job pane's lines (the one-node screen's pane, the list of
// nodes' top), how a job it ran ended, and the headless view's news. Text only: the generic pane (ui/panes/JobPane)
// draws the lines, the headless printer prints the news, so a scheduler's folder holds no React and no printer.

/** One line of the job pane. */
export interface JobLine {
	readonly text: string;
	readonly level: Level;
	/** Drawn dim: a last-known value while the scheduler does not answer. */
	readonly stale?: boolean;
}

/** What the headless view prints for the job: lines for stderr and, with --json, records for stdout. */
export interface JobNews {
	readonly lines: readonly string[];
	readonly records: readonly object[];
}

export interface SchedulerView {
	/**
	 * The pane's lines, most important first (the pane cuts from the end), printable; none when the state has nothing
	 * to show. `risk`: the snapshot's deadline judged against the saves (Snapshot.deadlineRisk).
	 */
	lines(state: SchedulerState, risk: DeadlineRisk | null, compact: boolean): JobLine[];
	/** How job `jobId` ended as the scheduler says it (where /proc could not read the exit); null: it does not say. */
	endedText?(jobId: string, state: SchedulerState): string | null;
	/** A headless reporter: the news in each snapshot (what changed since the last), not every tick. */
	report(): {update(snapshot: Snapshot): JobNews};
}

import type {SaveOutcome} from '../checkpoints/save-attribution.js';
import {CheckpointWatcher} from '../checkpoints/watch.js';
import type {Settings} from '../config/schema.js';
import {UsageError} from '../core/errors.js';
import type {Checkpoint, CheckpointIndex} from '../core/types.js';
import {TIME_SLACK_MS} from '../checkpoints/index-change.js';
import type {SignalName} from '../ranks/signals.js';
import {procReader} from '../system/procfs.js';

// Where the drill looks for its save, and how it tells that save from one the job made on its own. The watcher and
// the attribution are `signal --wait`'s (signal-watch.ts, checkpoints/signal-saves.ts), with one step more: the run
// dir is scanned again right before the signal goes. A file event is debounced and scanned a moment later, so a
// periodic save completed just before the signal could still be missing from the watcher's index when it is sent,
// and then count as new (the TUI's send scans first too: session/actions.ts). Scanned right before,
// every save complete by then is one the signal did not ask for: the drill's answer is a save that completes after.

export interface DrillWatch {
	readonly runDir: string;
	/** Scans now: every save complete from here on is before the signal, every one partial now was under way. */
	settle(): Promise<void>;
	/** The save the save signal sent at `sentAt` asked for (signal-saves.ts), when it was seen, and the saves passed over. */
	await(sentAt: number, signal: SignalName, job: string | null): Promise<DrillWait>;
	/** The run dir's index as it stands now (after the save: its write time among the saves). */
	index(): CheckpointIndex | null;
	stop(): Promise<void>;
}

export interface DrillWait {
	readonly outcome: SaveOutcome;
	/** Epoch ms the watcher saw it complete (or gave up). */
	readonly seenAt: number;
	/** Saves that completed after the signal but were under way when it went: not its answer. */
	readonly underWay: readonly string[];
}

/**
 * A save already being written when the signal went: partial at the scan right before it, or begun (its first
 * file's creation) more than the clock slack before it. A job answers a signal at its next step, so such a save is
 * one it was making anyway, however soon after the signal it completes.
 */
function underWayAt(c: Checkpoint, sentAt: number, partial: ReadonlySet<string>): boolean {
	if (partial.has(c.path)) return true;
	return c.writeS !== null && c.time - c.writeS * 1000 < sentAt - TIME_SLACK_MS;
}

/** The run dir to watch: the one given, else where a visible rank of the job runs (as `signal --wait` finds it). */
function watchedDir(given: string | null, rankPid: number | null): string {
	const runDir = given ?? (rankPid === null ? null : procReader().cwd(rankPid));
	if (runDir) return runDir;
	throw new UsageError(
		rankPid === null
			? 'drill: no rank of the job is visible on this node to find its run dir; give RUN_DIR'
			: `drill: cannot read the working directory of pid ${rankPid}; give RUN_DIR`,
	);
}

export async function drillWatch(
	settings: Settings,
	runDir: string | null,
	rankPid: number | null,
): Promise<DrillWatch> {
	const watcher = new CheckpointWatcher({
		runDir: watchedDir(runDir, rankPid),
		keep: settings.keep,
		poll: settings.poll > 0 ? {intervalMs: settings.poll * 1000} : null,
	});
	await watcher.start();
	const timeoutMs = settings.timeout * 1000;
	return {
		runDir: watcher.runDir,
		settle: async () => {
			await watcher.rescan().catch(() => undefined); // lastError has it; the watch goes on
		},
		await: async (sentAt, signal, job) => {
			const index = watcher.getIndex()?.checkpoints ?? [];
			const partial = new Set(index.filter(c => c.status === 'partial').map(c => c.path));
			// Complete ones are not its answer, and neither are those under way: the attribution skips both.
			const before = [...index.filter(c => c.status === 'complete').map(c => c.path), ...partial];
			watcher.noteSignal({signal, expect: 'manual', at: sentAt, job, before});
			const underWay: string[] = [];
			for (;;) {
				const left = sentAt + timeoutMs - Date.now();
				const outcome = await watcher.awaitSave(sentAt, Math.max(0, left), 'manual');
				const c = outcome.checkpoint;
				if (c === null || !underWayAt(c, sentAt, partial) || left <= 0) return {outcome, seenAt: Date.now(), underWay};
				// Complete now, so the next wait takes it for old: it waits for the save after it.
				underWay.push(c.name);
			}
		},
		index: () => watcher.getIndex(),
		stop: () => watcher.stop(),
	};
}

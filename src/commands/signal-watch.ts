import type {SaveExpectation, SaveOutcome} from '../checkpoints/save-attribution.js';
import {CheckpointWatcher} from '../checkpoints/watch.js';
import {UsageError} from '../core/errors.js';
import type {Settings} from '../config/schema.js';
import type {ExitReport} from '../fleet/node-exit-watch.js';
import {nodeExitLine, nodeExitStatus} from '../fleet/node-exit-words.js';
import {exitState} from '../fleet/node-exits.js';
import type {SignalName} from '../ranks/signals.js';
import {expectationOf} from '../session/actions.js';
import {procReader} from '../system/procfs.js';
import type {SignalPlan} from './signal-plan.js';

// `traintop signal --wait`: where the save a signal asked for is looked for, set up before the signal goes (so a
// checkpoint that already existed is never taken for the new one): the plan's own watch (through the agents, in a
// node's snapshots), else a checkpoint watcher on the run dir here. After an emergency through the agents, what became
// of each node's ranks, in the many-node screen's words.

export interface SaveWatch {
	readonly runDir: string;
	/** The save `signal`, sent at `sentAt`, asked for (expect null: a raw signal, any new checkpoint). */
	await(sentAt: number, expect: SaveExpectation | null, signal: SignalName): Promise<SaveOutcome>;
	stop(): Promise<void>;
}

/** Where --wait looks for the save: the plan's own watch (through the agents), else a watcher on the run dir here. */
export async function saveWatch(settings: Settings, plan: SignalPlan, runDir: string | null): Promise<SaveWatch> {
	if (plan.awaitSave) {
		const awaitSave = plan.awaitSave;
		return {
			runDir: plan.runDir ?? 'the run dir',
			// A raw signal's save has no expected kind: an unknown-kind checkpoint may be it, as for a save.
			await: (sentAt, expect) => awaitSave(sentAt, expect ?? 'manual'),
			stop: async () => {},
		};
	}
	const {watcher, runDir: watched} = await startWatcher(settings, runDir, plan.watchFrom);
	const timeoutMs = settings.timeout * 1000;
	return {
		runDir: watched,
		await: (sentAt, expect, signal) => {
			// The watcher's kinds follow what was sent: the first new save after it is that save (signal-saves.ts). A
			// raw SIGUSR1 or SIGTERM is the save or emergency signal all the same.
			const asked = expect ?? expectationOf(signal, settings);
			const job = typeof plan.job.id === 'string' ? plan.job.id : null;
			if (asked !== null) watcher.noteSignal({signal, expect: asked, at: sentAt, job});
			if (expect !== null) return watcher.awaitSave(sentAt, timeoutMs, expect);
			return watcher.awaitNewCheckpoint(sentAt, timeoutMs).then(checkpoint => ({
				checkpoint,
				attributed: checkpoint !== null,
				note: null,
			}));
		},
		stop: () => watcher.stop(),
	};
}

/** The run dir to watch: the one given, else where a visible rank runs (relative checkpoint paths start there). */
async function startWatcher(
	settings: Settings,
	given: string | null,
	rankPid: number | null,
): Promise<{watcher: CheckpointWatcher; runDir: string}> {
	const runDir = given ?? (rankPid === null ? null : procReader().cwd(rankPid));
	if (!runDir)
		throw new UsageError(
			rankPid === null
				? '--wait: no rank of the job is visible on this node to find its run dir; give RUN_DIR'
				: `--wait: cannot read the working directory of pid ${rankPid}; give RUN_DIR`,
		);
	const watcher = new CheckpointWatcher({
		runDir,
		keep: settings.keep,
		poll: settings.poll > 0 ? {intervalMs: settings.poll * 1000} : null,
	});
	await watcher.start();
	return {watcher, runDir};
}

/** Each node's line: `node1: ranks 0, 1 exited after SIGTERM (exit 99 — saved for requeue)`, or still running, or lost. */
export function exitLines(report: ExitReport, signal: SignalName, timeoutS: number): string[] {
	return report.nodes.map(node => nodeExitLine(node, signal, {timedOut: report.timedOut, timeoutS}));
}

/** --json's `exits`: each node's share, its state (`exited`, `running` at the timeout, `lost`), exit and line. */
export function exitsJson(report: ExitReport, signal: SignalName, timeoutS: number): Record<string, unknown>[] {
	const lines = exitLines(report, signal, timeoutS);
	return report.nodes.map((node, i) => ({
		node: node.node,
		job: node.job,
		state: exitState(node),
		exit: exitState(node) === 'exited' ? nodeExitStatus(node) : null,
		ranks: node.ranks.map(rank => ({rank: rank.rank, pid: rank.pid, exited: rank.gone, exit: rank.exit})),
		lost: node.lost,
		text: lines[i],
	}));
}

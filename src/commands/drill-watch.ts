import type {SaveOutcome} from '../checkpoints/save-attribution.js';
import {CheckpointWatcher} from '../checkpoints/watch.js';
import type {Settings} from '../config/schema.js';
import {UsageError} from '../core/errors.js';
import type {CheckpointIndex} from '../core/types.js';
import type {SignalName} from '../ranks/signals.js';
import {procReader} from '../system/procfs.js';

// Where the drill looks for its save, and how it tells that save from one the job made on its own. The watcher and
// the attribution are `signal --wait`'s (signal-watch.ts, checkpoints/signal-saves.ts), with one step more: the run
// dir is scanned again right before the signal goes. A file event is debounced and scanned a moment later, so a
// periodic save completed just before the signal could still be missing from the watcher's index when it is sent,
// and then count as new (the known limit of save attribution, test/e2e/ddp-real.test.ts). Scanned right before,
// every save complete by then is one the signal did not ask for: the drill's answer is a save that completes after.

export interface DrillWatch {
	readonly runDir: string;
	/** Scans now: every save complete from here on is before the signal. */
	settle(): Promise<void>;
	/** The save the save signal sent at `sentAt` asked for (signal-saves.ts), and when it was seen complete. */
	await(sentAt: number, signal: SignalName, job: string | null): Promise<{outcome: SaveOutcome; seenAt: number}>;
	/** The run dir's index as it stands now (after the save: its write time among the saves). */
	index(): CheckpointIndex | null;
	stop(): Promise<void>;
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
			const waiting = watcher.awaitSave(sentAt, timeoutMs, 'manual');
			const before = (watcher.getIndex()?.checkpoints ?? []).filter(c => c.status === 'complete').map(c => c.path);
			watcher.noteSignal({signal, expect: 'manual', at: sentAt, job, before});
			const outcome = await waiting;
			return {outcome, seenAt: Date.now()};
		},
		index: () => watcher.getIndex(),
		stop: () => watcher.stop(),
	};
}

// Retention plan, disk projection and save cadence for one scanned run dir. Pure: no I/O, no clock (`now` is given).
// Each checkpoint group (one layout's checkpoints in one directory) is planned under its own framework's rule
// (group-plan.ts, with the layout's `retention`, built from checkpoints/rules.ts): HF's save_total_limit with the best counted, Lightning's
// top-k by a metric, a framework that never deletes. What the run's files declare wins over --keep; keep-N learned
// from what the job deleted (learned-retention.ts) stands in for a declaration where there is none. The cadence and
// OVERDUE come from the saves traintop saw (seen-judgements.ts).

import type {Checkpoint, CheckpointIndex, RetentionMark, SaveCadence, ScanResult, SentSignal} from '../core/types.js';
import {groupsOf, mainGroup, planGroup} from './group-plan.js';
import {lastSave} from './last-save.js';
import type {SaveHistory} from './save-history.js';
import {seenJudgements} from './seen-judgements.js';
import {signalSaves} from './signal-saves.js';

// The last save's age and overdue, as the views and the agent refresh it with the clock (last-save.ts).
export {lastSaveAt} from './last-save.js';

export interface BuildIndexOptions {
	/** --keep N; null when the flag was not given. */
	readonly keep: number | null;
	/** Epoch ms of the scan. */
	readonly now: number;
	/** Free and total bytes of the run dir's file system (checkpoints/disk.ts); null when unknown. */
	readonly disk: {readonly freeBytes: number | null; readonly totalBytes: number | null} | null;
	/**
	 * The signals traintop sent to the job, oldest first (CheckpointWatcher.signalsSent): their saves' kinds follow
	 * them, and one that stops the job suspends OVERDUE.
	 */
	readonly signals?: readonly SentSignal[];
	/** The cadence known before this scan (the previous index's): a save off it right after a signal is the signal's. */
	readonly priorCadence?: SaveCadence | null;
	/**
	 * The run dir's save history, kept across rescans by the watcher: this scan is recorded into it. Absent: a one-shot
	 * look (`traintop checkpoints`), which sees no save being written and so judges no cadence.
	 */
	readonly history?: SaveHistory;
}

/**
 * How many more saves of `avg` bytes fit in `free` bytes.
 *
 * Without rotation (keep null): floor(free / avg).
 * With keep-N: the next max(0, N − count) saves add a checkpoint each without deleting anything; after that each save
 * writes one checkpoint and then deletes the oldest, so usage is flat once one checkpoint of headroom is free. So with
 * s = floor(free / avg) and g = max(0, N − count): if s > g, rotation keeps usage flat and the result is null (not
 * limited by disk); else s. Null as well when free or avg is unknown — callers tell the two nulls apart by
 * `rotationKeepsUsageFlat`.
 */
export function savesUntilFull(
	free: number | null,
	avg: number | null,
	keep: number | null,
	count: number,
): number | null {
	if (free === null || avg === null || !(avg > 0)) return null;
	const saves = Math.max(0, Math.floor(free / avg));
	if (keep === null) return saves;
	const growing = Math.max(0, keep - count);
	return saves > growing ? null : saves;
}

/** True when savesUntilFull is null because keep-N rotation keeps disk usage flat (not because something is unknown). */
export function rotationKeepsUsageFlat(index: CheckpointIndex): boolean {
	const {disk, retention} = index;
	return (
		retention.keep !== null &&
		disk.freeBytes !== null &&
		disk.avgCheckpointBytes !== null &&
		disk.avgCheckpointBytes > 0 &&
		disk.savesUntilFull === null
	);
}

export function buildIndex(given: ScanResult, options: BuildIndexOptions): CheckpointIndex {
	// First: the kinds of the saves traintop's own signals asked for, which everything below reads.
	const relabelled = signalSaves(given.checkpoints, options.signals ?? [], options.priorCadence ?? null);
	const scan = relabelled === given.checkpoints ? given : {...given, checkpoints: relabelled};
	const warnings = [...scan.warnings];
	const seen = seenJudgements(scan, options.now, options.history, options.signals ?? []);
	const plans = groupsOf(scan).map(group =>
		planGroup(scan, group, options.keep, warnings, seen.learned.get(group.key)),
	);
	const protectedSet = new Set(plans.flatMap(p => p.plan.protected));
	const doomedSet = new Set(plans.flatMap(p => p.plan.toPrune));

	const checkpoints: Checkpoint[] = scan.checkpoints.map(c => {
		const retention: RetentionMark = protectedSet.has(c) ? 'protected' : doomedSet.has(c) ? 'prune-next' : 'keep';
		return {...c, retention};
	});

	const complete = scan.checkpoints.filter(c => c.status === 'complete');
	const main = mainGroup(plans, complete)?.group;
	const keep = main?.keep ?? null;
	const count = main?.count ?? 0;
	const avgCheckpointBytes =
		complete.length === 0 ? null : complete.reduce((sum, c) => sum + c.bytes, 0) / complete.length;
	const freeBytes = options.disk?.freeBytes ?? null;
	const totalBytes = options.disk?.totalBytes ?? null;

	for (const c of scan.checkpoints) for (const w of c.warnings) warnings.push(`${c.name}: ${w}`);

	return {
		runDir: scan.runDir,
		layouts: scan.layouts,
		checkpoints,
		retention: {
			keep,
			source: main?.source ?? (options.keep !== null ? 'flag' : 'none'),
			count,
			toPrune: plans.flatMap(p => p.plan.toPrune.map(c => c.path)),
			groups: plans.map(p => p.group),
		},
		disk: {
			freeBytes,
			totalBytes,
			avgCheckpointBytes,
			savesUntilFull: savesUntilFull(freeBytes, avgCheckpointBytes, keep, count),
		},
		lastSave: lastSave(complete, options.now, seen.cadence),
		warnings,
		scannedAt: options.now,
		cadence: seen.cadence,
		// Where it looked, without the lists the watcher follows: a view says it when nothing was found.
		...(scan.search && {
			search: {
				dirs: scan.search.dirs,
				maxDepth: scan.search.maxDepth,
				skipped: scan.search.skipped,
				capped: scan.search.capped,
			},
		}),
	};
}

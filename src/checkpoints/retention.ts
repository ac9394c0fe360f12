// Retention plan, disk projection and save cadence for one scanned run dir. Pure: no I/O, no clock (`now` is given).
// The rule the frameworks share: Lightning's save_top_k, the HF Trainer's save_total_limit, torchtune and
// the seed tool all keep the newest N after a save; accelerate deletes down to N − 1 before the save,
// which prunes the same checkpoints.

import type {Checkpoint, CheckpointIndex, RetentionMark, ScannedCheckpoint, ScanResult} from '../core/types.js';

export interface BuildIndexOptions {
	/** --keep N; null when the flag was not given. */
	readonly keep: number | null;
	/** Epoch ms of the scan. */
	readonly now: number;
	/** Free and total bytes of the run dir's file system (checkpoints/disk.ts); null when unknown. */
	readonly disk: {readonly freeBytes: number | null; readonly totalBytes: number | null} | null;
}

/** The last save is overdue when its age exceeds this multiple of the median interval between saves. */
export const OVERDUE_FACTOR = 1.5;

/**
 * Oldest first: by step where both have one, else by time (then by name, for a stable order).
 */
function compareAge(a: ScannedCheckpoint, b: ScannedCheckpoint): number {
	if (a.step !== null && b.step !== null && a.step !== b.step) return a.step - b.step;
	if (a.time !== b.time) return a.time - b.time;
	return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function isProtected(c: ScannedCheckpoint): boolean {
	return c.kind === 'last' || c.kind === 'best';
}

/** A keep-N value: a whole number ≥ 1; anything else (0, negative, NaN) means "keep all", i.e. no rotation. */
function normaliseKeep(value: number | null): number | null {
	if (value === null || !Number.isFinite(value)) return null;
	const n = Math.floor(value);
	return n >= 1 ? n : null;
}

function median(values: readonly number[]): number | null {
	if (values.length === 0) return null;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
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

/**
 * Saves that make up the job's cadence: periodic ones, and those whose layout records no kind (HF checkpoint-N dirs
 * and the like are periodic in practice). A manual or emergency save comes whenever someone asks or the job is
 * preempted, so a gap to one says nothing about the schedule; `last` is a copy of another save and `best` a mark on
 * one, so their times would add zero gaps.
 */
function isCadence(c: ScannedCheckpoint): boolean {
	return c.kind === 'periodic' || c.kind === 'unknown';
}

function lastSave(complete: readonly ScannedCheckpoint[], now: number): CheckpointIndex['lastSave'] {
	if (complete.length === 0) return null;
	const newest = Math.max(...complete.map(c => c.time));
	const times = complete
		.filter(isCadence)
		.map(c => c.time)
		.sort((a, b) => a - b);
	const gaps: number[] = [];
	for (let i = 1; i < times.length; i++) gaps.push((times[i]! - times[i - 1]!) / 1000);
	return lastSaveAt({time: newest, medianIntervalS: median(gaps), periodicTime: times.at(-1) ?? null}, now);
}

/**
 * The last save's age and whether the cadence is overdue, as of `now`. The age grows while nothing is
 * written — the very case the overdue warning is for — so views refresh it with the clock instead
 * of waiting for a rescan that no file event will trigger.
 *
 * Overdue counts from the newest periodic save, not from `time`: a manual save does not restart the job's
 * schedule, so a job whose periodic saves stopped is late however many saves were asked for since. A caller
 * without periodicTime (built before it existed) gets the old rule: overdue counts from `time`.
 */
export function lastSaveAt(
	last: {readonly time: number; readonly medianIntervalS: number | null; readonly periodicTime?: number | null},
	now: number,
): NonNullable<CheckpointIndex['lastSave']> {
	// Clock skew between the writer (another node, NFS) and us can put a save in the future: its age is then 0.
	const age = (time: number): number => Math.max(0, (now - time) / 1000);
	const periodicTime = last.periodicTime === undefined ? last.time : last.periodicTime;
	const usual = last.medianIntervalS;
	// Saves a second apart or less (a burst, a copy) give no usual interval to be late against.
	const overdue = usual !== null && usual >= 1 && periodicTime !== null && age(periodicTime) > OVERDUE_FACTOR * usual;
	return {time: last.time, ageS: age(last.time), medianIntervalS: usual, periodicTime, overdue};
}

export function buildIndex(scan: ScanResult, options: BuildIndexOptions): CheckpointIndex {
	const fromFlag = options.keep !== null;
	const fromMetadata = !fromFlag && scan.declaredKeep !== null;
	const keep = normaliseKeep(fromFlag ? options.keep : scan.declaredKeep);
	const source = fromFlag ? 'flag' : fromMetadata ? 'metadata' : 'none';

	const complete = scan.checkpoints.filter(c => c.status === 'complete');
	const counted = complete.filter(c => !isProtected(c)).sort(compareAge);
	const pruneCount = keep === null ? 0 : Math.max(0, counted.length + 1 - keep);
	const doomed = counted.slice(0, pruneCount);
	const doomedSet = new Set<ScannedCheckpoint>(doomed);

	const checkpoints: Checkpoint[] = scan.checkpoints.map(c => {
		const retention: RetentionMark = isProtected(c) ? 'protected' : doomedSet.has(c) ? 'prune-next' : 'keep';
		return {...c, retention};
	});

	const avgCheckpointBytes =
		complete.length === 0 ? null : complete.reduce((sum, c) => sum + c.bytes, 0) / complete.length;
	const freeBytes = options.disk?.freeBytes ?? null;
	const totalBytes = options.disk?.totalBytes ?? null;

	const warnings = [...scan.warnings];
	for (const c of scan.checkpoints) for (const w of c.warnings) warnings.push(`${c.name}: ${w}`);

	return {
		runDir: scan.runDir,
		layouts: scan.layouts,
		checkpoints,
		retention: {keep, source, count: counted.length, toPrune: doomed.map(c => c.path)},
		disk: {
			freeBytes,
			totalBytes,
			avgCheckpointBytes,
			savesUntilFull: savesUntilFull(freeBytes, avgCheckpointBytes, keep, counted.length),
		},
		lastSave: lastSave(complete, options.now),
		warnings,
		scannedAt: options.now,
	};
}

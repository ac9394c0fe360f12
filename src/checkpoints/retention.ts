// Retention plan, disk projection and save cadence for one scanned run dir. Pure: no I/O, no clock (`now` is given).
// Each checkpoint group (one layout's checkpoints in one directory) is planned under its own framework's rule
// (the layout's `retention`, built from checkpoints/rules.ts): HF's save_total_limit with the best counted, Lightning's
// top-k by a metric, a framework that never deletes. What the run's files declare wins over --keep; keep-N learned
// from what the job deleted (learned-retention.ts) stands in for a declaration where there is none. The cadence and
// OVERDUE come from the saves traintop saw (seen-judgements.ts).

import type {
	Checkpoint,
	CheckpointIndex,
	DeclaredRetention,
	RetentionGroup,
	RetentionMark,
	RetentionSource,
	SaveCadence,
	ScanGroup,
	ScannedCheckpoint,
	ScanResult,
	SentSignal,
} from '../core/types.js';
import {signalSaves} from './signal-saves.js';
import {layoutNamed} from './layouts/registry.js';
import type {LearnedKeep} from './learned-retention.js';
import {keepNewest, type RetentionPlan} from './rules.js';
import type {SaveHistory} from './save-history.js';
import {seenJudgements} from './seen-judgements.js';

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

function lastSave(
	complete: readonly ScannedCheckpoint[],
	now: number,
	cadence: SaveCadence,
): CheckpointIndex['lastSave'] {
	if (complete.length === 0) return null;
	const newest = Math.max(...complete.map(c => c.time));
	const times = complete
		.filter(isCadence)
		.map(c => c.time)
		.sort((a, b) => a - b);
	const gaps: number[] = [];
	for (let i = 1; i < times.length; i++) gaps.push((times[i]! - times[i - 1]!) / 1000);
	const last = {time: newest, medianIntervalS: median(gaps), periodicTime: times.at(-1) ?? null};
	return lastSaveAt({...last, overdueAt: cadence.overdueAt}, now);
}

/**
 * The last save's age and whether the next periodic save is overdue, as of `now`. The age grows while nothing is
 * written — the very case the overdue warning is for — so views refresh it with the clock instead of waiting for a
 * rescan that no file event will trigger. Overdue once `overdueAt` (the cadence's expected time of the next periodic
 * save plus its margin, cadence.ts) has passed; never while it is null (learning, or the job stopping on our signal).
 * A lastSave without overdueAt (an index built by hand) keeps the overdue it has.
 */
export function lastSaveAt(
	last: {
		readonly time: number;
		readonly medianIntervalS: number | null;
		readonly periodicTime?: number | null;
		readonly overdueAt?: number | null;
		readonly overdue?: boolean;
	},
	now: number,
): NonNullable<CheckpointIndex['lastSave']> {
	// Clock skew between the writer (another node, NFS) and us can put a save in the future: its age is then 0.
	const ageS = Math.max(0, (now - last.time) / 1000);
	const periodicTime = last.periodicTime === undefined ? last.time : last.periodicTime;
	const {overdueAt} = last;
	const overdue = overdueAt === undefined ? (last.overdue ?? false) : overdueAt !== null && now > overdueAt;
	const judged = overdueAt === undefined ? {} : {overdueAt};
	return {time: last.time, ageS, medianIntervalS: last.medianIntervalS, periodicTime, overdue, ...judged};
}

/** The run's groups: those the scan recorded, plus any a checkpoint names that it did not (an index built by hand). */
function groupsOf(scan: ScanResult): ScanGroup[] {
	const groups = [...scan.groups];
	for (const c of scan.checkpoints) {
		if (!groups.some(group => group.key === c.group)) {
			groups.push({key: c.group, layout: c.layout, dir: '', declared: null});
		}
	}
	return groups;
}

/** The declared facts, cadence and whether keep was inferred, as RetentionGroup carries them. */
function evidence(
	declared: DeclaredRetention | null,
	source: RetentionSource,
): Pick<RetentionGroup, 'facts' | 'cadence' | 'keepInferred'> {
	if (declared === null) return {};
	return {
		...(declared.facts !== undefined && declared.facts.length > 0 ? {facts: declared.facts} : {}),
		...(declared.cadence != null ? {cadence: declared.cadence} : {}),
		...(declared.keepInferred === true && source === 'metadata' ? {keepInferred: true} : {}),
	};
}

interface GroupPlan {
	readonly group: RetentionGroup;
	readonly plan: RetentionPlan;
}

/**
 * One group under its framework's rule. What the run's files declare wins over --keep: the framework rotates by its
 * own setting, whatever we are told; a --keep that disagrees gets a warning.
 */
function planGroup(
	scan: ScanResult,
	group: ScanGroup,
	flagKeep: number | null,
	warnings: string[],
	learned: LearnedKeep | undefined,
): GroupPlan {
	const layout = layoutNamed(group.layout);
	const said = group.declared?.keep ?? null;
	if (said === null && learned) return planLearned(scan, group, flagKeep, warnings, learned);
	const declared = said === 'all' ? 'all' : normaliseKeep(said);
	const fromFlag = declared === null && flagKeep !== null;
	const keep = declared ?? normaliseKeep(flagKeep);
	let source: RetentionSource = declared !== null ? 'metadata' : fromFlag ? 'flag' : 'none';
	if (declared !== null && flagKeep !== null && normaliseKeep(flagKeep) !== declared) {
		const where = group.dir === '' ? '' : ` in ${group.dir}`;
		warnings.push(
			`--keep ${flagKeep} not used for the ${layout.title} checkpoints${where}: ${group.declared?.from} says ${declared === 'all' ? 'keep all' : declared}, and the framework rotates by that`,
		);
	}
	const members = scan.checkpoints.filter(c => c.group === group.key);
	const monitor = group.declared?.monitor ?? null;
	const keepsAll = keep === 'all';
	const plan = layout.retention({checkpoints: members, keep: keepsAll ? null : keep, keepsAll, monitor});
	const used = plan.keep !== undefined ? plan.keep : keepsAll ? null : keep;
	// A run that says "keep all" is a known source; an unknown keep-N is none.
	if (used === null && keep !== 'all') source = 'none';
	const retention: RetentionGroup = {
		key: group.key,
		layout: layout.name,
		framework: layout.title,
		dir: group.dir,
		rule: plan.rule,
		keep: used,
		source,
		from: source === 'metadata' ? (group.declared?.from ?? null) : null,
		count: plan.counted.length,
		toPrune: plan.toPrune.map(c => c.path),
		// Where each setting came from, for the views; only what was read (absent fields: nothing declared).
		...evidence(group.declared, source),
	};
	return {group: retention, plan};
}

/**
 * A group whose files declare no keep but whose job was seen deleting its oldest at each save, holding N: keep-N under
 * the framework's own rule (what it counts and protects). Learned wins over --keep: the
 * flag is the user's word for the same setting, and the job deleting down to N at its last saves is the setting at
 * work, as a declaration is; a --keep that disagrees gets a warning, as against a declaration.
 */
function planLearned(
	scan: ScanResult,
	group: ScanGroup,
	flagKeep: number | null,
	warnings: string[],
	learned: LearnedKeep,
): GroupPlan {
	const layout = layoutNamed(group.layout);
	const members = scan.checkpoints.filter(c => c.group === group.key);
	const input = {checkpoints: members, keep: learned.keep, monitor: group.declared?.monitor ?? null};
	// The framework's own rule with the keep learned (HF counts its best); one that never deletes: the job's script
	// does, so the newest N are kept.
	const own = layout.retention(input);
	const plan = own.keep === null ? keepNewest({framework: layout.title, setting: 'keep'})(input) : own;
	const flag = normaliseKeep(flagKeep);
	if (flag !== null && flag !== learned.keep) {
		const where = group.dir === '' ? '' : ` in ${group.dir}`;
		warnings.push(
			`--keep ${flagKeep} not used for the ${layout.title} checkpoints${where}: the job was seen keeping ${learned.keep}, deleting its oldest at each of its last ${learned.rotations} saves`,
		);
	}
	const rule = `keeps ${learned.keep}: learned from what the job deleted (its oldest, at each of its last ${learned.rotations} saves)`;
	const retention: RetentionGroup = {
		key: group.key,
		layout: layout.name,
		framework: layout.title,
		dir: group.dir,
		rule,
		keep: learned.keep,
		source: 'learned',
		from: null,
		count: plan.counted.length,
		toPrune: plan.toPrune.map(c => c.path),
	};
	return {group: retention, plan};
}

/** The group of the newest complete checkpoint (what the job writes now), else the first. */
function mainGroup(plans: readonly GroupPlan[], complete: readonly ScannedCheckpoint[]): GroupPlan | undefined {
	const newest = [...complete].sort((a, b) => a.time - b.time).at(-1);
	return plans.find(p => p.group.key === newest?.group) ?? plans[0];
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

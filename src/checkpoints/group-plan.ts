import type {
	DeclaredRetention,
	RetentionGroup,
	RetentionSource,
	ScanGroup,
	ScannedCheckpoint,
	ScanResult,
} from '../core/types.js';
import {layoutNamed} from './layouts/registry.js';
import type {LearnedKeep} from './learned-retention.js';
import {keepNewest, type RetentionPlan} from './rules.js';

// One checkpoint group (one layout's checkpoints in one directory) planned under its own framework's rule: what the
// run's files declare, else keep-N learned from what the job deleted, else --keep. Pure, as retention.ts.

/** A keep-N value: a whole number ≥ 1; anything else (0, negative, NaN) means "keep all", i.e. no rotation. */
function normaliseKeep(value: number | null): number | null {
	if (value === null || !Number.isFinite(value)) return null;
	const n = Math.floor(value);
	return n >= 1 ? n : null;
}

/** The run's groups: those the scan recorded, plus any a checkpoint names that it did not (an index built by hand). */
export function groupsOf(scan: ScanResult): ScanGroup[] {
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

export interface GroupPlan {
	readonly group: RetentionGroup;
	readonly plan: RetentionPlan;
}

/**
 * One group under its framework's rule. What the run's files declare wins over --keep: the framework rotates by its
 * own setting, whatever we are told; a --keep that disagrees gets a warning.
 */
export function planGroup(
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
export function mainGroup(plans: readonly GroupPlan[], complete: readonly ScannedCheckpoint[]): GroupPlan | undefined {
	const newest = [...complete].sort((a, b) => a.time - b.time).at(-1);
	return plans.find(p => p.group.key === newest?.group) ?? plans[0];
}

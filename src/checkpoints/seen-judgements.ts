import type {CheckpointIndex, SaveCadence, ScannedCheckpoint, ScanResult, SentSignal} from '../core/types.js';
import {saveCadence, stoppingText} from './cadence.js';
import {learnedKeep, type LearnedKeep} from './learned-retention.js';
import {layoutNamed} from './layouts/registry.js';
import {isLastOrBest} from './rules.js';
import {SaveHistory} from './save-history.js';

// What buildIndex judges from what traintop saw the job do rather than from one look at the disk: the save cadence
// (cadence.ts) and retention learned from deletions (learned-retention.ts). Kept apart from retention.ts, which
// plans from the scan alone.

/** Why an index built from one look (no history: `traintop checkpoints`) judges no cadence. */
const ONE_LOOK =
	'learning: one look at the disk shows no save being written; the monitor learns the cadence as it watches';

export interface SeenJudgements {
	readonly cadence: SaveCadence;
	/** keep-N learned per group key, for groups that showed one. */
	readonly learned: ReadonlyMap<string, LearnedKeep>;
}

/**
 * How many of a group's complete checkpoints its framework's rotation counts (HF counts its best within
 * save_total_limit); for a framework that never deletes, those neither last nor best (what a job's own script rotates).
 */
function rotationCount(members: readonly ScannedCheckpoint[]): number {
	const complete = members.filter(c => c.status === 'complete');
	const first = complete[0];
	if (!first) return 0;
	// keep unknown: what the rule ranks, not what a given keep would leave (Orbax counts only the newest N).
	const plan = layoutNamed(first.layout).retention({checkpoints: complete, keep: null, monitor: null});
	return plan.keep === null ? complete.filter(c => !isLastOrBest(c)).length : plan.counted.length;
}

/**
 * Records the scan into `history` (the watcher's, kept across rescans; without one, a fresh history that this scan
 * seeds: a one-shot look learns nothing) and judges from it. The scan's kinds must be final (after any relabelling by
 * the signals traintop sent): the cadence counts periodic saves only.
 */
export function seenJudgements(
	scan: ScanResult,
	now: number,
	history: SaveHistory | undefined,
	signals: readonly SentSignal[],
): SeenJudgements {
	const seen = history ?? new SaveHistory();
	seen.record(scan.checkpoints, now, rotationCount);
	const learned = new Map<string, LearnedKeep>();
	for (const group of new Set(scan.checkpoints.map(c => c.group))) {
		const keep = learnedKeep(seen.changes, group, rotationCount(scan.checkpoints.filter(c => c.group === group)), now);
		if (keep) learned.set(group, keep);
	}
	const declared = (key: string) => scan.groups.find(group => group.key === key)?.declared?.cadence ?? null;
	const cadence = saveCadence({saves: seen.saves, declared, signals, now});
	// One look at the disk sees no save being written: say so rather than "no periodic save seen" beside a list of them.
	if (history === undefined && cadence.learning !== null) return {cadence: {...cadence, learning: ONE_LOOK}, learned};
	return {cadence, learned};
}

/**
 * The index with OVERDUE suspended when an emergency signal was sent after the scan that built it: no file event need
 * come for a job being stopped to stop counting as late. The same object when nothing changes.
 */
export function suspendedBySignal(
	index: CheckpointIndex | null,
	signals: readonly SentSignal[],
): CheckpointIndex | null {
	const cadence = index?.cadence;
	if (!index?.lastSave || !cadence || cadence.overdueAt === null) return index;
	const signal = signals.filter(s => s.expect === 'emergency' && s.at > index.scannedAt).at(-1);
	if (!signal) return index;
	return {
		...index,
		cadence: {...cadence, overdueAt: null, suspended: stoppingText(signal)},
		lastSave: {...index.lastSave, overdueAt: null, overdue: false},
	};
}

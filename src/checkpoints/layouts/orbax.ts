// Orbax (JAX) CheckpointManager: one directory per step, named by _StandardNameFormat: the bare step (100/), or
// <step_prefix>_<step> (step_100/), zero-padded with step_format_fixed_length. A save writes into a temporary path and
// finalizes it; two ways, per AtomicityMode:
//   atomic rename (the default off GCS): <name>.orbax-checkpoint-tmp (older versions add -<timestamp>), renamed to
//     <name> last: a tmp-suffixed directory is a save that did not finish;
//   commit file (GCS, or asked for): written in place under <name>, committed by commit_success.txt last.
// Since AtomicityOptions, finalize writes commit_success.txt in both modes (before the rename); older versions wrote
// it only in commit-file mode, so its absence alone proves nothing. A final-named step is partial when its
// _CHECKPOINT_METADATA has no commit_timestamp_nsecs (finalize adds it before committing) or when the other steps
// in the directory have commit_success.txt and it does not. Each item (default/, state/…) is a subdirectory with
// _METADATA, _sharding, manifest.ocdbt.
// Retention: after each save _get_old_steps_to_remove asks the preservation policy (LatestN(max_to_keep) together
// with EveryNSteps(keep_period), or BestN(best_fn)) about the finalized steps and deletes the rest. No option is
// written to disk, so N is --keep; steps older than the newest N that are still there survived an earlier save's
// deletion: keep_period (or best_fn) preserves them, and any step their common divisor divides.
// Declared: nothing about retention or cadence. A real CheckpointManager(max_to_keep=3, save_interval_steps=2) of
// orbax-checkpoint 0.12.4 (test/fixtures/frameworks/recorded/orbax-keep3) leaves per step _CHECKPOINT_METADATA
// (item_handlers, metrics, performance_metrics, init/commit_timestamp_nsecs, custom_metadata), commit_success.txt and
// the items; no file holds max_to_keep, keep_period or save_interval_steps, so keep-N stays unknown (--keep, or what
// the watcher learns from the deletions) and the cadence is learned from the steps seen.
// Source: google/orbax checkpoint/orbax/checkpoint/checkpoint_manager.py: CheckpointManagerOptions,
// _get_default_preservation_policy, save, _get_old_steps_to_remove, _finalize; _src/path/atomicity.py:
// AtomicRenameTemporaryPath.finalize, CommitFileTemporaryPath.finalize, _create_tmp_directory; _src/path/step.py:
// _StandardNameFormat, TMP_DIR_STEP_PATTERN; _src/path/temporary_paths.py: is_path_finalized;
// _src/checkpoint_managers/preservation_policy.py: LatestN, EveryNSteps, BestN; _src/metadata/checkpoint.py.

import path from 'node:path';
import {jsonProblem} from '../json-problem.js';
import type {ScannedCheckpoint} from '../../core/types.js';
import {compareAge, type RetentionRule} from '../rules.js';
import {
	found,
	intOf,
	isRecord,
	NOTHING,
	numberOf,
	type Entry,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';

const STEP = /^(?:.+_)?(\d+)$/;
/** step.py TMP_DIR_STEP_PATTERN, anchored: [prefix_]<step>.orbax-checkpoint-tmp[-<timestamp>]. */
const TMP = /^(?:.*?_)?(\d+)\.orbax-checkpoint-tmp(?:-\d+)?$/;
const COMMIT_SUCCESS = 'commit_success.txt';
const STEP_METADATA = '_CHECKPOINT_METADATA';
/** What an item directory holds: PyTree metadata, sharding, an OCDBT manifest. */
const ITEM_FILES = ['_METADATA', '_sharding', 'manifest.ocdbt'];
/** Item directories looked into for those, at most, when the step has neither marker file. */
const MAX_ITEMS = 4;
const MAX_METADATA_BYTES = 256 * 1024;

interface Step {
	readonly entry: Entry;
	readonly step: number | null;
	readonly names: ReadonlySet<string>;
}

/** Whether a final-named directory is an Orbax step: its marker files, or an item directory with Orbax's files. */
async function isOrbaxStep(entry: Entry, inner: readonly Entry[], io: LayoutIO): Promise<boolean> {
	if (inner.some(e => e.name === STEP_METADATA || e.name === COMMIT_SUCCESS)) return true;
	for (const item of inner.filter(e => e.type === 'dir').slice(0, MAX_ITEMS)) {
		const files = (await io.list(path.join(entry.path, item.name))) ?? [];
		if (files.some(file => ITEM_FILES.includes(file.name))) return true;
	}
	return false;
}

interface StepMetadata {
	readonly commitMs: number | null;
	readonly problem: string | null;
}

async function readStepMetadata(entry: Entry, io: LayoutIO): Promise<StepMetadata> {
	const text = await io.readText(path.join(entry.path, STEP_METADATA), MAX_METADATA_BYTES);
	if (text === null) return {commitMs: null, problem: `${STEP_METADATA}: cannot be read`};
	try {
		const value: unknown = JSON.parse(text);
		if (!isRecord(value)) return {commitMs: null, problem: `${STEP_METADATA}: expected a JSON object`};
		const nanos = numberOf(value.commit_timestamp_nsecs);
		return {commitMs: nanos === null ? null : Math.round(nanos / 1e6), problem: null};
	} catch (caught) {
		return {commitMs: null, problem: `${STEP_METADATA}: ${jsonProblem(caught)}`};
	}
}

async function judgeStep(step: Step, siblingsCommit: boolean, io: LayoutIO): Promise<Found> {
	const {entry, names} = step;
	const fields = {step: step.step, kind: 'unknown' as const};
	const meta = names.has(STEP_METADATA) ? await readStepMetadata(entry, io) : null;
	const time = meta?.commitMs ?? null;
	if (names.has(COMMIT_SUCCESS)) return found(entry, {...fields, time});
	if (meta !== null && meta.problem === null && meta.commitMs === null) {
		const why = `no ${COMMIT_SUCCESS} and no commit_timestamp_nsecs in ${STEP_METADATA}: the save did not finish`;
		return found(entry, {...fields, status: 'partial', warnings: [why]});
	}
	if (siblingsCommit) {
		const why = `no ${COMMIT_SUCCESS}, which the other steps have: the save did not finish`;
		return found(entry, {...fields, time, status: 'partial', warnings: [why]});
	}
	// Atomic rename before commit_success.txt was written everywhere: the final name is the commit.
	return found(entry, {...fields, time, warnings: meta?.problem ? [meta.problem] : []});
}

function gcd(a: number, b: number): number {
	return b === 0 ? a : gcd(b, a % b);
}

/**
 * LatestN(max_to_keep) over the finalized steps; those older than the newest N are still there because keep_period
 * (or best_fn) preserves them, and so is the step about to drop out of the newest N when their common divisor
 * (a multiple of keep_period) divides it.
 */
const retention: RetentionRule = ({checkpoints, keep}) => {
	const finalized = checkpoints.filter(c => c.status === 'complete').sort(compareAge);
	if (keep === null) {
		return {rule: 'Orbax max_to_keep unknown: keeps all (--keep N)', counted: finalized, toPrune: [], protected: []};
	}
	const older = finalized.slice(0, Math.max(0, finalized.length - keep));
	const newest = finalized.slice(older.length);
	const period = older.reduce((g, c) => (c.step === null || c.step === 0 ? g : gcd(c.step, g)), 0);
	const next = newest.length >= keep ? newest[0] : undefined;
	const preserved = next !== undefined && period > 0 && next.step !== null && next.step % period === 0;
	const protectedOnes: ScannedCheckpoint[] = preserved && next ? [...older, next] : older;
	const toPrune = next !== undefined && !preserved ? [next] : [];
	const note = older.length > 0 ? `, ${older.length} older kept (keep_period or best_fn)` : '';
	const counted = newest.filter(c => !protectedOnes.includes(c));
	return {rule: `Orbax max_to_keep ${keep}${note}`, counted, toPrune, protected: protectedOnes};
};

export const orbaxLayout: Layout = {
	name: 'orbax',
	title: 'Orbax',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const result: Found[] = [];
		const steps: Step[] = [];
		for (const entry of dir.entries) {
			if (entry.type !== 'dir') continue;
			const tmp = TMP.exec(entry.name);
			if (tmp) {
				const why = 'orbax-checkpoint-tmp: never renamed to its final name, so the save did not finish';
				result.push(found(entry, {step: intOf(tmp[1]), kind: 'unknown', status: 'partial', warnings: [why]}));
				continue;
			}
			const match = STEP.exec(entry.name);
			if (!match) continue;
			const inner = (await io.list(entry.path)) ?? [];
			if (!(await isOrbaxStep(entry, inner, io))) continue;
			steps.push({entry, step: intOf(match[1]), names: new Set(inner.map(e => e.name))});
		}
		const committed = steps.filter(step => step.names.has(COMMIT_SUCCESS)).length;
		for (const step of steps) {
			const others = committed - (step.names.has(COMMIT_SUCCESS) ? 1 : 0);
			result.push(await judgeStep(step, others > 0, io));
		}
		return result.length === 0 ? NOTHING : {found: result, warnings: [], declared: null};
	},
	retention,
};

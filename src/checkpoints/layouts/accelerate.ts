// Hugging Face Accelerate: Accelerator.save_state with ProjectConfiguration(automatic_checkpoint_naming=True) writes
// <project_dir>/checkpoints/checkpoint_<N>/, N the save count (ProjectConfiguration.iteration, not a training step:
// it is what the rotation orders by, and what is reported as the step). Into it save_accelerator_state writes, in
// order: the weights (model.safetensors or pytorch_model.bin; FSDP and DeepSpeed write their own files first),
// optimizer.bin, scheduler.bin, sampler.bin, dl_state_dict.bin, scaler.pt, then random_states_<rank>.pkl (every
// process its own); then save_state writes custom_checkpoint_<i>.pkl for each object registered for checkpointing.
// Partial: no random_states_*.pkl; a custom_checkpoint_<i>.pkl missing that the previous checkpoint has; one of those
// last files cut short (a torch.save zip without its end record). Retention: before it saves, save_state deletes the
// oldest entries of checkpoints/ (every entry counts, partial ones too) until total_limit − 1 remain. total_limit is
// not written to disk (only ProjectConfiguration holds it): --keep. Nor is any save cadence: accelerate 1.15.0's
// save_state(total_limit=3) (test/fixtures/frameworks/recorded/accelerate-keep3) leaves model.safetensors,
// optimizer.bin and random_states_0.pkl (RNG states and the dataloader `step`) per checkpoint, nothing else.
// Source: huggingface/accelerate 1.15.0 src/accelerate/accelerator.py: Accelerator.save_state; src/accelerate/checkpointing.py:
// save_accelerator_state, save_custom_state; src/accelerate/utils/dataclasses.py: ProjectConfiguration.

import {keepNewest} from '../rules.js';
import {
	found,
	hasZipEnd,
	intOf,
	NOTHING,
	startsAsZip,
	TRUNCATED,
	type Entry,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';

const CHECKPOINT = /^checkpoint_(\d+)$/;
const RNG_STATE = /^random_states_\d+\.pkl$/;
const CUSTOM_STATE = /^custom_checkpoint_\d+\.pkl$/;
/** The names save_accelerator_state, save_custom_state and the FSDP / DeepSpeed savers write into a checkpoint. */
const ACCELERATE_FILE =
	/^(?:(?:model|pytorch_model)(?:_\d+)?\.(?:safetensors|bin)|pytorch_model(?:_\d+)?|pytorch_model_fsdp.*|optimizer(?:_\d+)?(?:\.bin)?|(?:scheduler|sampler|dl_state_dict)(?:_\d+)?\.bin|scaler\.pt|random_states_\d+\.pkl|custom_checkpoint_\d+\.pkl)$/;

interface Candidate {
	readonly entry: Entry;
	readonly step: number | null;
	readonly inner: ReadonlyMap<string, Entry>;
}

/** A checkpoint_<N> dir that Accelerate wrote: empty (just made) or holding at least one of its file names. */
async function candidate(entry: Entry, io: LayoutIO): Promise<Candidate | null> {
	const step = intOf(CHECKPOINT.exec(entry.name)?.[1]);
	const listed = await io.list(entry.path);
	if (listed === null) return null;
	if (listed.length > 0 && !listed.some(item => ACCELERATE_FILE.test(item.name))) return null;
	return {entry, step, inner: new Map(listed.map(item => [item.name, item]))};
}

/** Whether a file save_state writes last is whole: torch.save writes its zip in place, end record last. */
async function cutShort(file: Entry, io: LayoutIO): Promise<boolean> {
	if (file.size === 0) return true;
	return (await startsAsZip(io, file.path)) && !(await hasZipEnd(io, file.path));
}

async function judge(c: Candidate, previous: Candidate | undefined, io: LayoutIO): Promise<Found> {
	const warnings: string[] = [];
	const rng = [...c.inner.values()].filter(item => RNG_STATE.test(item.name));
	if (rng.length === 0)
		warnings.push('no random_states_<rank>.pkl (written last by each process): the save did not finish');
	const customNames = (m: ReadonlyMap<string, Entry>): string[] =>
		[...m.keys()].filter(name => CUSTOM_STATE.test(name));
	for (const name of previous === undefined ? [] : customNames(previous.inner)) {
		if (!c.inner.has(name)) {
			warnings.push(`no ${name}, which ${previous?.entry.name} has (saved last): the save did not finish`);
		}
	}
	for (const item of [...rng, ...customNames(c.inner).map(name => c.inner.get(name))]) {
		if (item !== undefined && (await cutShort(item, io))) warnings.push(`${item.name}: ${TRUNCATED}`);
	}
	const status = warnings.length === 0 ? 'complete' : 'partial';
	return found(c.entry, {step: c.step, status, kind: 'periodic', warnings});
}

export const accelerateLayout: Layout = {
	name: 'accelerate',
	title: 'Hugging Face Accelerate',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const candidates: Candidate[] = [];
		for (const entry of dir.entries) {
			if (entry.type !== 'dir' || !CHECKPOINT.test(entry.name)) continue;
			const c = await candidate(entry, io);
			if (c !== null) candidates.push(c);
		}
		if (candidates.length === 0) return NOTHING;
		candidates.sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
		const result: Found[] = [];
		// The previous save that finished its random states sets what a later one must hold.
		let previous: Candidate | undefined;
		for (const c of candidates) {
			const item = await judge(c, previous, io);
			result.push(item);
			if ([...c.inner.keys()].some(name => RNG_STATE.test(name))) previous = c;
		}
		return {found: result, warnings: [], declared: null};
	},
	// save_state sorts every entry of checkpoints/ by the number in its name and deletes the oldest, partial or not.
	retention: keepNewest({framework: 'Accelerate', setting: 'total_limit', protects: () => false, counts: () => true}),
};

// Orbax CheckpointManager step directories as google/orbax writes them: _StandardNameFormat.build_name for the name;
// _create_tmp_directory makes the temporary path and writes _CHECKPOINT_METADATA (init_timestamp_nsecs); the
// checkpointer writes each item (default/: _METADATA, _sharding, manifest.ocdbt, ocdbt.process_0/, d/); finalize
// (AtomicRenameTemporaryPath or CommitFileTemporaryPath) adds commit_timestamp_nsecs to _CHECKPOINT_METADATA, writes
// commit_success.txt and, in atomic-rename mode, renames <name>.orbax-checkpoint-tmp to <name>.

import {renameSync} from 'node:fs';
import path from 'node:path';
import {mkdir, put, setMtime} from '../fixtures.js';

/** commit-file: written in place; atomic-rename: the current suffix; legacy-rename: -<timestamp> and no commit file. */
export type OrbaxMode = 'commit-file' | 'atomic-rename' | 'legacy-rename';

/** How far a save got: the directory and its metadata, the items written, or finalized. */
export type OrbaxStage = 'created' | 'items' | 'finalized';

export interface OrbaxSave {
	readonly step: number;
	/** Epoch ms of the save; becomes init/commit timestamps and the directory's mtime. */
	readonly time: number;
	readonly mode?: OrbaxMode;
	readonly stage?: OrbaxStage;
	/** CheckpointManagerOptions.step_prefix. */
	readonly prefix?: string;
	/** step_format_fixed_length. */
	readonly fixedLength?: number;
	/** Orbax before the step metadata store: no _CHECKPOINT_METADATA. */
	readonly noStepMetadata?: boolean;
}

/** _StandardNameFormat.build_name. */
function stepName(step: number, prefix?: string, fixedLength?: number): string {
	const digits = fixedLength === undefined ? String(step) : String(step).padStart(fixedLength, '0');
	return prefix === undefined ? digits : `${prefix}_${digits}`;
}

function stepMetadata(time: number, committed: boolean): string {
	const handler = 'orbax.checkpoint._src.handlers.standard_checkpoint_handler.StandardCheckpointHandler';
	const nanos = BigInt(time) * 1_000_000n;
	const commit = committed ? `, "commit_timestamp_nsecs": ${nanos + 2_000_000_000n}` : '';
	const body = `"item_handlers": {"default": "${handler}"}, "metrics": {}, "performance_metrics": {}`;
	return `{${body}, "init_timestamp_nsecs": ${nanos}${commit}, "custom_metadata": {}}`;
}

/** One save into `directory` (the CheckpointManager's root). Returns the path it is left at. */
export function orbaxSave(directory: string, save: OrbaxSave): string {
	const mode = save.mode ?? 'atomic-rename';
	const stage = save.stage ?? 'finalized';
	const name = stepName(save.step, save.prefix, save.fixedLength);
	const suffix =
		mode === 'commit-file'
			? ''
			: mode === 'atomic-rename'
				? '.orbax-checkpoint-tmp'
				: `.orbax-checkpoint-tmp-${save.time}`;
	const working = mkdir(directory, `${name}${suffix}`);
	if (!save.noStepMetadata) put(working, '_CHECKPOINT_METADATA', stepMetadata(save.time, false));
	if (stage !== 'created') {
		put(working, 'default/_METADATA', JSON.stringify({tree_metadata: {params: {}}, use_zarr3: false}));
		put(working, 'default/_sharding', '{}');
		put(working, 'default/manifest.ocdbt', 40);
		put(working, 'default/ocdbt.process_0/manifest.ocdbt', 40);
		put(working, 'default/ocdbt.process_0/d/0a1b2c3d', 700 + save.step);
	}
	if (stage !== 'finalized') return working;
	if (!save.noStepMetadata) put(working, '_CHECKPOINT_METADATA', stepMetadata(save.time, true));
	if (mode !== 'legacy-rename')
		put(working, 'commit_success.txt', `Checkpoint commit was successful to ${path.join(directory, name)}`);
	const final = path.join(directory, name);
	if (working !== final) renameSync(working, final);
	setMtime(final, save.time);
	return final;
}

// Run dirs as MosaicML Composer's CheckpointSaver leaves them (mosaicml/composer
// composer/callbacks/checkpoint_saver.py: CheckpointSaver._save_checkpoint, _rotate_checkpoints;
// composer/utils/checkpoint.py: get_save_filename, _save_checkpoint, _write_checkpoint_file):
//   save_folder/ep{epoch}-ba{batch}-rank0.pt      torch.save straight into the final name (rank 0 only)
//   save_folder/latest-rank0.pt -> ep…-rank0.pt   removed, then re-created as a relative symlink after each save
//   save_folder/ep{epoch}-ba{batch}/__{r}_0.distcp + .metadata   (FSDP sharded state dict; .metadata written last)
// then _rotate_checkpoints removes the oldest of this process's saves beyond num_checkpoints_to_keep.

import {rmSync, unlinkSync} from 'node:fs';
import path from 'node:path';
import {link, mkdir, put, setMtime, zipArchive} from '../fixtures.js';

export interface ComposerSave {
	readonly epoch: number;
	readonly batch: number;
	/** Epoch ms. */
	readonly time: number;
}

/** Where CheckpointSaver's default folder `{run_name}/checkpoints` puts saves, relative to the run dir. */
export const COMPOSER_FOLDER = 'checkpoints';

function composerName(save: ComposerSave, rank = 0): string {
	return `ep${save.epoch}-ba${save.batch}-rank${rank}.pt`;
}

/** Points latest-rank0.pt at `target` as _save_checkpoint does: os.remove, then os.symlink(relpath). */
export function composerLatest(runDir: string, target: string): string {
	const latest = path.join(runDir, COMPOSER_FOLDER, 'latest-rank0.pt');
	rmSync(latest, {force: true});
	return link(runDir, `${COMPOSER_FOLDER}/latest-rank0.pt`, target);
}

/** One monolithic save: the torch.save zip (cut to `truncateTo` bytes when given: the writer died), then latest. */
export function composerSave(runDir: string, save: ComposerSave, options: {truncateTo?: number} = {}): string {
	const name = composerName(save);
	const bytes = zipArchive(2000 + save.batch);
	const file = put(runDir, `${COMPOSER_FOLDER}/${name}`, bytes.subarray(0, options.truncateTo ?? bytes.length));
	setMtime(file, save.time);
	// A save that died in torch.save never reached the symlink.
	if (options.truncateTo === undefined) composerLatest(runDir, name);
	return file;
}

/**
 * A run of monolithic saves with num_checkpoints_to_keep = `keep` (-1: keep all): each save, then its symlink, then
 * the rotation of the oldest. Returns the paths of the saves still on disk, oldest first.
 */
export function composerRun(runDir: string, saves: readonly ComposerSave[], keep: number): string[] {
	const kept: string[] = [];
	for (const save of saves) {
		kept.push(composerSave(runDir, save));
		while (keep >= 0 && kept.length > keep) unlinkSync(kept.shift()!);
	}
	return kept;
}

/**
 * One FSDP sharded save: the directory `ep{epoch}-ba{batch}` (sharded_ckpt_prefix_dir) with one `__{rank}_0.distcp`
 * per rank and DCP's `.metadata` last, unless `finished` is false; latest then points at the directory.
 */
export function composerShardedSave(runDir: string, save: ComposerSave, ranks: number, finished = true): string {
	const dir = mkdir(runDir, `${COMPOSER_FOLDER}/ep${save.epoch}-ba${save.batch}`);
	for (let rank = 0; rank < ranks; rank++) put(dir, `__${rank}_0.distcp`, 500 + rank);
	if (!finished) return dir;
	put(dir, '.metadata', 64);
	composerLatest(runDir, path.basename(dir));
	return dir;
}

/** A tar save (`filename='ep{epoch}-ba{batch}-rank{rank}.tar'`): tarfile adds composer_states.pt, then end blocks. */
export function composerTarSave(runDir: string, save: ComposerSave, finished = true): string {
	const header = Buffer.alloc(512);
	header.write('composer_states.pt', 0, 'ascii');
	const member = zipArchive(600);
	const padded = Buffer.concat([member, Buffer.alloc((512 - (member.length % 512)) % 512)]);
	// tarfile closes with two zero blocks and pads the archive to its 10240-byte record size.
	const body = Buffer.concat([header, padded]);
	const blocks = body.length + 1024;
	const end = finished ? Buffer.alloc(1024 + ((10240 - (blocks % 10240)) % 10240)) : Buffer.alloc(0);
	const file = put(runDir, `${COMPOSER_FOLDER}/ep${save.epoch}-ba${save.batch}-rank0.tar`, Buffer.concat([body, end]));
	setMtime(file, save.time);
	return file;
}

// MosaicML Composer's CheckpointSaver: `save_folder/ep{epoch}-ba{batch}-rank{rank}.pt` by default (only rank 0
// writes a monolithic checkpoint), a torch.save zip written straight into its final name (no temporary name), or a
// tar (`.tar`, `.tar.gz`, …) built from a temp dir, or a compressed `.pt.lz4` / `.pt.zst` … piped through the CLI
// tool. With FSDP sharded state dicts a save is a directory `ep{epoch}-ba{batch}/` (fsdp_config
// sharded_ckpt_prefix_dir) of `__<rank>_0.distcp` shards whose `.metadata` torch.distributed.checkpoint writes last.
// After the save, `latest-rank{rank}.pt` is removed and re-created as a relative symlink to the new file (to the
// directory when sharded); then, when num_checkpoints_to_keep ≥ 0, the oldest saves of this process are deleted
// until that many remain (-1, the default, keeps all).
// Partial: a .pt zip without its end record, a .tar without its two zero end blocks, an empty file, a sharded
// directory without `.metadata`, a `latest` symlink whose target is gone. Compressed files are not judged.
// Source: mosaicml/composer composer/callbacks/checkpoint_saver.py: CheckpointSaver.__init__, _save_checkpoint,
// _rotate_checkpoints; composer/utils/checkpoint.py: get_save_filename, _save_checkpoint, _write_checkpoint_file.

import path from 'node:path';
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

/** ep3-ba1200-rank0.pt, ep3-ba1200.tar.gz, ep3-ba1200 (a sharded save's directory). */
const SAVE = /^ep(\d+)-ba(\d+)(?:-rank(\d+))?((?:\.[a-z0-9]+){0,2})$/i;
const LATEST = /^latest-rank(\d+)(?:\.[a-z0-9]+){0,2}$/i;
const METADATA = '.metadata';
/** A tar archive ends with two 512-byte blocks of zeros (Python's tarfile pads further with zeros). */
const TAR_END = 1024;

interface Judgement {
	readonly status: Found['status'];
	readonly warnings: string[];
}

const WHOLE: Judgement = {status: 'complete', warnings: []};

function partial(why: string): Judgement {
	return {status: 'partial', warnings: [why]};
}

async function judgeFile(entry: Entry, io: LayoutIO): Promise<Judgement> {
	if (entry.size === 0) return partial('empty file: the save did not get to write it');
	if (/\.tar$/i.test(entry.name)) {
		const tail = await io.readRange(entry.path, TAR_END, 'tail');
		if (tail !== null && (tail.length < TAR_END || tail.some(byte => byte !== 0))) {
			return partial('truncated: no tar end blocks');
		}
		return WHOLE;
	}
	// A .pt is a torch.save zip; compressed and gzip/bzip2 tars cannot be judged without reading them whole.
	if (/\.pt$/i.test(entry.name) || (await startsAsZip(io, entry.path))) {
		return (await hasZipEnd(io, entry.path)) ? WHOLE : partial(TRUNCATED);
	}
	return WHOLE;
}

async function judge(entry: Entry, io: LayoutIO): Promise<Judgement> {
	if (entry.type === 'missing') return partial(`dangling symlink to ${entry.linkTarget ?? '?'}: its target is gone`);
	if (entry.type !== 'dir') return judgeFile(entry, io);
	if ((await io.entry(path.join(entry.path, METADATA)))?.type === 'file') return WHOLE;
	return partial(`sharded checkpoint without ${METADATA}: the save did not finish`);
}

/** Epoch and batch of a save's name (a sharded directory carries no extension). */
function parseSave(entry: Entry): {epoch: number; batch: number} | null {
	const match = SAVE.exec(entry.name);
	if (match === null) return null;
	const epoch = intOf(match[1]);
	const batch = intOf(match[2]);
	if (epoch === null || batch === null) return null;
	const isDir = entry.type === 'dir' && !entry.symlink;
	return (match[4] === '') === isDir ? {epoch, batch} : null;
}

async function latestFound(entry: Entry, io: LayoutIO): Promise<Found> {
	// The symlink's own text names the save it points at: ep3-ba1200-rank0.pt or ep3-ba1200.
	const target = path.basename(entry.linkTarget ?? '');
	const match = SAVE.exec(target);
	const {status, warnings} = await judge(entry, io);
	return found(entry, {step: intOf(match?.[2]), epoch: intOf(match?.[1]), kind: 'last', status, warnings});
}

export const composerLayout: Layout = {
	name: 'composer',
	title: 'MosaicML Composer',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const result: Found[] = [];
		for (const entry of dir.entries) {
			if (entry.type === 'other') continue;
			if (LATEST.test(entry.name)) {
				result.push(await latestFound(entry, io));
				continue;
			}
			const save = parseSave(entry);
			if (save === null) continue;
			const {status, warnings} = await judge(entry, io);
			result.push(found(entry, {step: save.batch, epoch: save.epoch, kind: 'periodic', status, warnings}));
		}
		return result.length === 0 ? NOTHING : {found: result, warnings: [], declared: null};
	},
	// _rotate_checkpoints pops the oldest of this process's saves after each save; the latest symlink is outside it.
	// (Its list starts empty in each process: saves from before a restart are never deleted. Nothing on disk says
	// which process wrote a save, so all of the group's are counted.)
	retention: keepNewest({framework: 'Composer', setting: 'num_checkpoints_to_keep'}),
};

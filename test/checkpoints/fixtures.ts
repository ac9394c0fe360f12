// Builders of run dirs for the checkpoint scan tests: temporary directories, files of exact sizes, real (tiny) zip
// archives shaped like torch.save's, and the seed layout as the demo job writes it. Nothing binary is committed.

import {mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {crc32} from 'node:zlib';
import {CheckpointWatcher} from '../../src/checkpoints/watch.js';

const made: string[] = [];

/** A new empty directory under the system temp dir; removeTempDirs() deletes it. */
export function makeTempDir(prefix = 'traintop-scan-'): string {
	const dir = mkdtempSync(path.join(tmpdir(), prefix));
	made.push(dir);
	return dir;
}

export function removeTempDirs(): void {
	for (const dir of made.splice(0)) rmSync(dir, {recursive: true, force: true});
}

/** Writes `root/rel` (parents created): text, bytes, or a number of filler bytes. Returns the absolute path. */
export function put(root: string, rel: string, content: string | Buffer | number): string {
	const file = path.join(root, rel);
	mkdirSync(path.dirname(file), {recursive: true});
	writeFileSync(file, typeof content === 'number' ? Buffer.alloc(content, 0x61) : content);
	return file;
}

export function mkdir(root: string, rel: string): string {
	const dir = path.join(root, rel);
	mkdirSync(dir, {recursive: true});
	return dir;
}

/** A symlink at `root/rel` whose text is `target` (relative targets resolve from the link's directory). */
export function link(root: string, rel: string, target: string): string {
	const file = path.join(root, rel);
	mkdirSync(path.dirname(file), {recursive: true});
	symlinkSync(target, file);
	return file;
}

/** Sets access and modification time (epoch ms) without following a symlink's absence. */
export function setMtime(file: string, ms: number): void {
	utimesSync(file, ms / 1000, ms / 1000);
}

/** Little-endian 16- and 32-bit fields, for the binary formats the fixtures lay out (zip, HDF5, pickle). */
export function u16(value: number): Buffer {
	const buffer = Buffer.alloc(2);
	buffer.writeUInt16LE(value);
	return buffer;
}

export function u32(value: number): Buffer {
	const buffer = Buffer.alloc(4);
	buffer.writeUInt32LE(value >>> 0);
	return buffer;
}

/** End-of-central-directory record: the whole of an empty zip when entries and sizes are 0. */
export function endRecord(entries = 0, cdSize = 0, cdOffset = 0, comment = Buffer.alloc(0)): Buffer {
	const disks = [u16(0), u16(0), u16(entries), u16(entries)];
	return Buffer.concat([u32(0x06054b50), ...disks, u32(cdSize), u32(cdOffset), u16(comment.length), comment]);
}

/**
 * A valid stored (uncompressed) zip with one member of `payloadBytes` bytes, as torch.save lays one out
 * (`archive/data/0`); `comment` goes after the end record (torch writes none).
 */
export function zipArchive(payloadBytes: number, comment = Buffer.alloc(0)): Buffer {
	const name = Buffer.from('archive/data/0');
	const data = Buffer.alloc(payloadBytes, 0x5a);
	const crc = crc32(data);
	// version needed, flags, method (stored), time, date (1980-01-01), crc, sizes, name length, extra length
	const sizes = [u32(crc), u32(data.length), u32(data.length)];
	const common = [u16(20), u16(0), u16(0), u16(0), u16(0x21), ...sizes, u16(name.length), u16(0)];
	const local = Buffer.concat([u32(0x04034b50), ...common, name, data]);
	const central = Buffer.concat([u32(0x02014b50), u16(20), ...common, u16(0), u16(0), u16(0), u32(0), u32(0), name]);
	return Buffer.concat([local, central, endRecord(1, central.length, local.length, comment)]);
}

/** `YYYYmmdd_HHMMSS` and `YYYY-mm-ddTHH:MM:SS` in local time, as the demo job's time.strftime writes them. */
function seedStamps(ms: number): {name: string; iso: string} {
	const d = new Date(ms);
	const p = (value: number): string => String(value).padStart(2, '0');
	const date = `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}`;
	const time = `${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
	const day = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
	const iso = `${day}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
	return {name: `${date}_${time}`, iso};
}

export interface SeedSave {
	readonly step: number;
	readonly epoch: number;
	readonly kind: string;
	/** Epoch ms, whole seconds. */
	readonly time: number;
}

export interface SeedWritten extends SeedSave {
	readonly name: string;
	readonly dir: string;
	/** state.pt + meta.json. */
	readonly bytes: number;
	readonly entry: {step: number; epoch: number; timestamp: string; checkpoint_path: string; kind: string};
}

/** One final checkpoint directory as demo/job/checkpointing.py leaves it (state.pt zip + meta.json). */
export function seedCheckpoint(runDir: string, save: SeedSave, suffix = ''): SeedWritten {
	const stamps = seedStamps(save.time);
	const name = `checkpoint_step_${save.step}_${stamps.name}`;
	const dir = mkdir(runDir, `checkpoints/${name}${suffix}`);
	const state = zipArchive(1000 + save.step);
	const meta = `${JSON.stringify({step: save.step, epoch: save.epoch, kind: save.kind, time: stamps.iso}, null, 2)}\n`;
	put(dir, 'state.pt', state);
	put(dir, 'meta.json', meta);
	const {step, epoch, kind} = save;
	const entry = {step, epoch, timestamp: stamps.iso, checkpoint_path: `./checkpoints/${name}`, kind};
	return {...save, name: `${name}${suffix}`, dir, bytes: state.length + Buffer.byteLength(meta), entry};
}

/** checkpoints/checkpoint_metadata.json naming `saves` (the last one is latest_checkpoint). */
export function seedMetadata(runDir: string, saves: readonly SeedWritten[], maxCheckpoints: number): string {
	const entries = saves.map(save => save.entry);
	const data = {checkpoints: entries, latest_checkpoint: entries.at(-1) ?? null, max_checkpoints: maxCheckpoints};
	return put(runDir, 'checkpoints/checkpoint_metadata.json', `${JSON.stringify(data, null, 2)}\n`);
}

/** An HF Trainer trainer_state.json body. */
export function trainerState(fields: {epoch: number; step: number; losses: number[]; best?: string}): string {
	const logHistory = [
		...fields.losses.map((loss, i) => ({epoch: fields.epoch, loss, learning_rate: 1e-4, step: (i + 1) * 10})),
		{epoch: fields.epoch, eval_loss: 9.9, step: fields.step},
	];
	return JSON.stringify({
		epoch: fields.epoch,
		global_step: fields.step,
		max_steps: 1000,
		log_history: logHistory,
		best_metric: fields.best === undefined ? null : 0.5,
		best_model_checkpoint: fields.best ?? null,
	});
}

const startedWatchers: CheckpointWatcher[] = [];

/** A real watcher on `runDir` (keep unknown), started; stopStartedWatchers() stops every one (an afterEach). */
export async function startedWatcher(runDir: string): Promise<CheckpointWatcher> {
	const watcher = new CheckpointWatcher({runDir, keep: null});
	startedWatchers.push(watcher);
	await watcher.start();
	return watcher;
}

export async function stopStartedWatchers(): Promise<void> {
	await Promise.all(startedWatchers.splice(0).map(w => w.stop()));
}

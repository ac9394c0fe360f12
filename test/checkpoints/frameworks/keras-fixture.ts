// Run dirs as Keras's ModelCheckpoint leaves them (keras-team/keras keras/src/callbacks/model_checkpoint.py:
// ModelCheckpoint._save_model, _get_file_path; keras/src/saving/saving_lib.py: save_model, _save_model_to_fileobj,
// save_weights_only): one file per save, named by the `filepath` template filled with epoch + 1 and the logs,
//   `.keras`       a zip (zipfile, stored) of metadata.json, config.json, model.weights.h5, written in place
//   `.weights.h5`  an HDF5 file written in place by h5py (H5IOStore, mode "w")
// No temporary name, no marker: a save that dies leaves a zip without its end record, or an HDF5 file whose
// superblock still carries the write-access flag (set at open, cleared at close) or an end of file past its size.
// The HDF5 bytes follow what h5py 3.16 / HDF5 2.0 writes (checked byte for byte against a file it made): superblock
// v0 with 8-byte offsets and lengths (libver "earliest", h5py's default) or v3 (libver "latest").

import {crc32} from 'node:zlib';
import {endRecord, put, setMtime, u16, u32} from '../fixtures.js';

const SIGNATURE = Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);
const UNDEFINED = Buffer.alloc(8, 0xff);

function u64(value: number): Buffer {
	const buffer = Buffer.alloc(8);
	buffer.writeBigUInt64LE(BigInt(value));
	return buffer;
}

export interface Hdf5Options {
	/** Bytes of the whole file when closed (the EOF address); the rest after the superblock is filler. */
	readonly length: number;
	/** 0 (h5py's default) or 3 (libver="latest"). */
	readonly version?: 0 | 3;
	/** Still open for writing: the consistency flags' write-access bit is set. */
	readonly open?: boolean;
}

/** A tiny HDF5 file: the superblock h5py writes, then filler up to the end-of-file address it records. */
export function hdf5File(options: Hdf5Options): Buffer {
	const flags = options.open ? 1 : 0;
	let superblock: Buffer;
	if ((options.version ?? 0) === 0) {
		// version 0, free-space 0, root symbol table 0, reserved, shared header 0, offsets 8, lengths 8, reserved,
		// group leaf K 4, group internal K 16, consistency flags (u32)
		const head = Buffer.from([0, 0, 0, 0, 0, 8, 8, 0, 4, 0, 16, 0, flags, 0, 0, 0]);
		// base 0, free-space info undefined, end of file, driver info undefined, root group symbol table entry
		const rootEntry = Buffer.concat([u64(0), u64(96), Buffer.from([1, 0, 0, 0, 0, 0, 0, 0]), u64(136), u64(680)]);
		superblock = Buffer.concat([SIGNATURE, head, u64(0), UNDEFINED, u64(options.length), UNDEFINED, rootEntry]);
	} else {
		// version 3, offsets 8, lengths 8, flags; base, superblock extension (none), end of file, root object header,
		// then a Jenkins lookup3 checksum that traintop does not check (left zero here).
		const head = Buffer.from([3, 8, 8, flags]);
		superblock = Buffer.concat([SIGNATURE, head, u64(0), UNDEFINED, u64(options.length), u64(48), Buffer.alloc(4)]);
	}
	return Buffer.concat([superblock, Buffer.alloc(Math.max(0, options.length - superblock.length), 0x11)]);
}

/** A stored zip of named members in order, as zipfile.ZipFile(f, "w") writes one: local headers, then the directory. */
function storedZip(members: ReadonlyArray<readonly [string, Buffer]>): Buffer {
	const locals: Buffer[] = [];
	const centrals: Buffer[] = [];
	let offset = 0;
	for (const [name, data] of members) {
		const nameBytes = Buffer.from(name);
		const sizes = [u32(crc32(data)), u32(data.length), u32(data.length)];
		const common = [u16(20), u16(0), u16(0), u16(0), u16(0x21), ...sizes, u16(nameBytes.length), u16(0)];
		const local = Buffer.concat([u32(0x04034b50), ...common, nameBytes, data]);
		const tail = [u16(0), u16(0), u16(0), u32(0), u32(offset), nameBytes];
		centrals.push(Buffer.concat([u32(0x02014b50), u16(20), ...common, ...tail]));
		locals.push(local);
		offset += local.length;
	}
	const central = Buffer.concat(centrals);
	return Buffer.concat([...locals, central, endRecord(members.length, central.length, offset)]);
}

/** A `.keras` archive as saving_lib._save_model_to_fileobj writes it. */
function kerasArchive(weightsBytes = 800): Buffer {
	const metadata = Buffer.from(JSON.stringify({keras_version: '3.11.0', date_saved: '2026-03-01@08:00:00'}));
	const config = Buffer.from(JSON.stringify({module: 'keras', class_name: 'Sequential', config: {}}));
	return storedZip([
		['metadata.json', metadata],
		['config.json', config],
		['model.weights.h5', hdf5File({length: weightsBytes})],
	]);
}

export interface KerasSave {
	/** The filled-in template, e.g. `model.05-0.32.keras`. */
	readonly name: string;
	/** Epoch ms. */
	readonly time: number;
	/** How the save was left: whole, cut short at `bytes`, or (HDF5) still open for writing. */
	readonly cut?: number;
	readonly open?: boolean;
}

/** One ModelCheckpoint save into `dir` (relative to the run dir): a .keras zip or a .weights.h5 / .h5 HDF5 file. */
export function kerasSave(runDir: string, dir: string, save: KerasSave): string {
	const whole = save.name.endsWith('.keras') ? kerasArchive() : hdf5File({length: 1500, open: save.open});
	const file = put(runDir, `${dir}${dir === '' ? '' : '/'}${save.name}`, whole.subarray(0, save.cut ?? whole.length));
	setMtime(file, save.time);
	return file;
}

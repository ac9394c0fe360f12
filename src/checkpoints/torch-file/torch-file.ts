// A torch.save file as data, for every reader of .bin/.pt/.ckpt/.pth: the object pickle read by the safe interpreter
// (pickle.ts: nothing is imported or called, Python never runs) and a way to its tensors' storage bytes.
// Two byte layouts:
// - zip (torch ≥ 1.6, the default): `<prefix>/data.pkl` is the object; each storage is `<prefix>/data/<key>`; the
//   prefix is the file's stem as torch wrote it ("archive/", "training_args/", "zip/"). Read from the central
//   directory (zip.ts): torch 2.x writes data descriptors that leave the local headers' sizes at 0.
// - legacy (before 1.6, or _use_new_zipfile_serialization=False): a run of pickles, the magic number, the protocol
//   version, sys_info, the object, the list of storage keys, then each storage as an int64 element count and its bytes.
// Source: pytorch/pytorch torch/serialization.py: _save, _legacy_save (persistent_id), _load, _legacy_load;
// torch/_utils.py: _rebuild_tensor_v2.

import {DTYPE_BYTES, STORAGE_DTYPES} from '../../core/dtypes.js';
import type {LayoutIO} from '../layouts/layout.js';
import {readPickle} from './pickle.js';
import {pyInt, pyItems, pyStr, type PyValue} from './py-value.js';
import {readZipDirectory, readZipMember, readZipMemberRange, ZIP_LOCAL_MAGIC, type ZipMember} from './zip.js';

/** Storage bytes of a file: `count` bytes at `byteOffset` of storage `key`, or why not. */
type StorageReader = (key: string, byteOffset: number, count: number) => Promise<Buffer | string>;

export interface TorchFile {
	readonly status: 'ok';
	readonly format: 'zip' | 'legacy';
	/** The object torch.save was given, as a data tree. */
	readonly root: PyValue;
	/** Reads a storage's bytes (tensor.ts uses it for scalars). */
	readonly readStorage: StorageReader;
}

export type TorchRead = TorchFile | {readonly status: 'unreadable'; readonly why: string};

export interface TorchReadOptions {
	/** The object pickle over this size is not read (a pickled TrainingArguments is ~5 KiB, a Lightning .ckpt's a few MiB). */
	readonly maxPickleBytes?: number;
}

const DEFAULT_MAX_PICKLE_BYTES = 32 * 1024 * 1024;
/** A storage member read whole when it is compressed; a scalar lives in a few bytes. */
const MAX_STORAGE_INFLATE = 16 * 1024 * 1024;
const PICKLE_PROTO = 0x80;
/** torch/serialization.py MAGIC_NUMBER, the legacy format's first pickle. */
const LEGACY_MAGIC = 0x1950a86a20f9469cfc6cn;
/** Storages before the one wanted are skipped one header read each; more than this is not a checkpoint worth it. */
const MAX_LEGACY_STORAGES = 100_000;

const unreadable = (why: string): TorchRead => ({status: 'unreadable', why});

async function readZip(io: LayoutIO, file: string, maxPickle: number): Promise<TorchRead> {
	const directory = await readZipDirectory(io, file);
	if (directory.status !== 'ok') return directory;
	// torch writes data.pkl first, under one top-level folder; older writers named it archive/data.pkl.
	const pkl = directory.members.find(member => member.name === 'data.pkl' || /^[^/]*\/data\.pkl$/.test(member.name));
	if (pkl === undefined) return unreadable('a zip without data.pkl: not a torch.save archive');
	const prefix = pkl.name.slice(0, -'data.pkl'.length);
	const byteorder = directory.members.find(member => member.name === `${prefix}byteorder`);
	if (byteorder !== undefined) {
		const order = await readZipMember(io, file, byteorder, 16);
		if (order.status === 'ok' && order.bytes.toString('latin1') !== 'little') {
			return unreadable(`byteorder ${order.bytes.toString('latin1')}: only little-endian files are read`);
		}
	}
	const bytes = await readZipMember(io, file, pkl, maxPickle);
	if (bytes.status !== 'ok') return bytes;
	const read = readPickle(bytes.bytes);
	if (read.status !== 'ok') return unreadable(`${pkl.name}: ${read.why}`);
	const byName = new Map<string, ZipMember>(directory.members.map(member => [member.name, member]));
	const readStorage: StorageReader = async (key, byteOffset, count) => {
		const member = byName.get(`${prefix}data/${key}`);
		if (member === undefined) return `no ${prefix}data/${key} in the archive`;
		const range = await readZipMemberRange(io, file, member, byteOffset, count, MAX_STORAGE_INFLATE);
		return range.status === 'ok' ? range.bytes : range.why;
	};
	return {status: 'ok', format: 'zip', root: read.value, readStorage};
}

/** The element size of a legacy storage, from its persistent id's storage type: ('storage', torch.FloatStorage, …). */
function storageSizes(root: PyValue): Map<string, number> {
	const sizes = new Map<string, number>();
	const seen = new Set<PyValue>();
	const stack: PyValue[] = [root];
	while (stack.length > 0 && seen.size < 10_000_000) {
		const node = stack.pop()!;
		if (seen.has(node)) continue;
		seen.add(node);
		if (node.type === 'persid') {
			const [, type, key] = pyItems(node.id);
			const size = type?.type === 'global' ? elementSize(type.name) : null;
			if (typeof pyStr(key) === 'string' && size !== null) sizes.set(pyStr(key)!, size);
			continue;
		}
		if (node.type === 'tuple' || node.type === 'list' || node.type === 'set' || node.type === 'frozenset') {
			stack.push(...node.items);
		} else if (node.type === 'dict') for (const [k, v] of node.entries) stack.push(k, v);
		else if (node.type === 'call') {
			stack.push(node.args, ...node.items);
			for (const [k, v] of node.entries) stack.push(k, v);
			if (node.state !== null) stack.push(node.state);
		}
	}
	return sizes;
}

/** Bytes per element of a torch storage class (torch.FloatStorage: 4; an UntypedStorage counts bytes); null for one not known. */
export function elementSize(storageType: string): number | null {
	if (storageType === 'UntypedStorage') return 1;
	const dtype = STORAGE_DTYPES[storageType];
	return dtype === undefined ? null : (DTYPE_BYTES[dtype] ?? null);
}

/** The legacy format's five leading pickles, and where the storages start; or why they cannot be read. */
function legacyPickles(bytes: Buffer, whole: boolean): {pickles: PyValue[]; end: number} | string {
	const pickles: PyValue[] = [];
	let at = 0;
	for (const name of ['magic number', 'protocol version', 'sys_info', 'object', 'storage keys']) {
		const read = readPickle(bytes, at);
		if (read.status !== 'ok') {
			const clipped = whole ? '' : ` (only its first ${bytes.length} bytes are read)`;
			return `legacy torch.save: its ${name} pickle: ${read.why}${clipped}`;
		}
		if (pickles.length === 0 && (read.value.type !== 'int' || read.value.value !== LEGACY_MAGIC)) {
			return 'a pickle, but not a torch.save file (its first pickle is not torch’s magic number)';
		}
		pickles.push(read.value);
		at = read.end;
	}
	return {pickles, end: at};
}

/** The first read of a legacy file; each retry reads 8 times more, up to maxPickle (the storages follow the pickles). */
const LEGACY_FIRST_READ = 256 * 1024;

async function readLegacy(io: LayoutIO, file: string, maxPickle: number): Promise<TorchRead> {
	// A legacy file is its pickles followed by every tensor's bytes: read only as much of its head as the pickles take.
	let parsed: {pickles: PyValue[]; end: number} | string = 'cannot be read';
	for (let count = Math.min(LEGACY_FIRST_READ, maxPickle); ; count = Math.min(count * 8, maxPickle)) {
		const head = await io.readAt(file, 0, count);
		if (head === null) return unreadable('cannot be read');
		const whole = head.bytes.length >= head.size;
		parsed = legacyPickles(head.bytes, whole);
		if (typeof parsed !== 'string' || whole || count >= maxPickle) break;
	}
	if (typeof parsed === 'string') return unreadable(parsed);
	const at = parsed.end;
	const [, , , root, keys] = parsed.pickles as [PyValue, PyValue, PyValue, PyValue, PyValue];
	const order = pyItems(keys).map(key => pyStr(key));
	const dataStart = at;
	const sizes = storageSizes(root);
	const readStorage: StorageReader = async (key, byteOffset, count) => {
		const index = order.indexOf(key);
		if (index < 0) return `storage ${key} is not in the file's storage list`;
		if (index > MAX_LEGACY_STORAGES)
			return `storage ${key} is number ${index}, past the ${MAX_LEGACY_STORAGES} skipped`;
		let offset = dataStart;
		for (let i = 0; ; i++) {
			const header = await io.readAt(file, offset, 8);
			if (header?.bytes.length !== 8) return `storage ${order[i]} is cut short`;
			const numel = header.bytes.readBigInt64LE(0);
			const size = sizes.get(order[i] ?? '');
			if (size === undefined) return `storage ${order[i]} has a type this reader does not know`;
			const length = Number(numel) * size;
			if (!Number.isSafeInteger(length) || length < 0 || offset + 8 + length > header.size) {
				return `storage ${order[i]} is cut short`;
			}
			if (i === index) {
				if (byteOffset + count > length) return `bytes ${byteOffset}..${byteOffset + count} are outside storage ${key}`;
				const bytes = await io.readAt(file, offset + 8 + byteOffset, count);
				return bytes?.bytes.length === count ? bytes.bytes : `storage ${key} is cut short`;
			}
			offset += 8 + length;
		}
	};
	return {status: 'ok', format: 'legacy', root, readStorage};
}

/**
 * Reads a torch.save file (.bin, .pt, .ckpt, .pth) as data: never runs Python, never calls what the pickle names.
 * Never throws: anything it cannot read is a reason.
 */
export async function readTorchFile(io: LayoutIO, file: string, options: TorchReadOptions = {}): Promise<TorchRead> {
	const maxPickle = options.maxPickleBytes ?? DEFAULT_MAX_PICKLE_BYTES;
	const head = await io.readAt(file, 0, 4);
	if (head === null) return unreadable('cannot be read');
	if (head.bytes.length < 4) return unreadable(`${head.size} bytes: too short for a torch.save file`);
	if (head.bytes.readUInt32LE(0) === ZIP_LOCAL_MAGIC) return readZip(io, file, maxPickle);
	if (head.bytes[0] === PICKLE_PROTO) return readLegacy(io, file, maxPickle);
	return unreadable('neither a torch.save zip nor a pickle');
}

/** An int field of a tuple (a tensor's size or stride): its items as numbers, or null when one is not an int. */
export function intTuple(node: PyValue | undefined): number[] | null {
	if (node?.type !== 'tuple' && node?.type !== 'list') return null;
	const values = node.items.map(pyInt);
	return values.every((value): value is number => value !== null) ? values : null;
}

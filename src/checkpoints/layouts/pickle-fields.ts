// One setting from a pickled Python object, without unpickling it: torch.save (protocol 2) writes an object's
// __dict__ as a run of (key, value) pairs, so the key's own opcode bytes find the field and the opcodes right after
// it are its value. Used for HF Trainer's training_args.bin (a pickled TrainingArguments). Only the head of the file
// is read; a zip archive (torch.save since 1.6) is opened at its `<archive>/data.pkl` member, which torch writes
// first and stores uncompressed; a legacy torch.save file is a plain run of pickles.
// Source: pytorch/pytorch torch/serialization.py: _save (pickle_protocol 2, data.pkl first);
// caffe2/serialize/inline_container.cc: PyTorchStreamWriter (stored records, `<stem>/` prefix).

import type {LayoutIO} from './layout.js';

/** A pickled TrainingArguments is a few KiB; this leaves room for odd ones and stays cheap. */
const MAX_PICKLE_BYTES = 1024 * 1024;

export type PickleField =
	| {readonly status: 'int'; readonly value: number}
	| {readonly status: 'none'}
	/** The key is not in the first MAX_PICKLE_BYTES, or its value is not an int or None. */
	| {readonly status: 'unreadable'; readonly why: string};

const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const PICKLE_PROTO = 0x80;

/** The bytes of the zip member whose name ends in data.pkl (clipped to what was read), or a reason. */
function dataPkl(head: Buffer): Buffer | string {
	let at = 0;
	while (at + 30 <= head.length && head.readUInt32LE(at) === LOCAL_HEADER) {
		const method = head.readUInt16LE(at + 8);
		const size = head.readUInt32LE(at + 18);
		const nameLength = head.readUInt16LE(at + 26);
		const extraLength = head.readUInt16LE(at + 28);
		const name = head.subarray(at + 30, at + 30 + nameLength).toString('latin1');
		const start = at + 30 + nameLength + extraLength;
		if (name === 'data.pkl' || name.endsWith('/data.pkl')) {
			if (method !== STORED) return `${name} is compressed (method ${method}), not as torch.save writes it`;
			return head.subarray(start, Math.min(head.length, start + size));
		}
		at = start + size;
	}
	return `no data.pkl in the first ${head.length} bytes`;
}

/** The opcodes a pickler writes for a str key: BINUNICODE (protocol 2), SHORT_BINUNICODE (4+), SHORT_BINSTRING. */
function keyPatterns(key: string): Buffer[] {
	const text = Buffer.from(key, 'utf8');
	const long = Buffer.alloc(5);
	long.writeUInt8(0x58, 0); // X
	long.writeUInt32LE(text.length, 1);
	const patterns = [Buffer.concat([long, text])];
	if (text.length < 256) {
		patterns.push(Buffer.concat([Buffer.from([0x8c, text.length]), text])); // \x8c
		patterns.push(Buffer.concat([Buffer.from([0x55, text.length]), text])); // U
	}
	return patterns;
}

/** The value opcode at `at`, after the key's memo opcodes (BINPUT q, LONG_BINPUT r, MEMOIZE \x94). */
function valueAt(bytes: Buffer, start: number): PickleField {
	let at = start;
	for (;;) {
		const op = bytes[at];
		if (op === 0x71) at += 2;
		else if (op === 0x72) at += 5;
		else if (op === 0x94) at += 1;
		else break;
	}
	const op = bytes[at];
	const need = (n: number): boolean => at + 1 + n <= bytes.length;
	if (op === 0x4e) return {status: 'none'}; // N
	if (op === 0x4b && need(1)) return {status: 'int', value: bytes.readUInt8(at + 1)}; // K: BININT1
	if (op === 0x4d && need(2)) return {status: 'int', value: bytes.readUInt16LE(at + 1)}; // M: BININT2
	if (op === 0x4a && need(4)) return {status: 'int', value: bytes.readInt32LE(at + 1)}; // J: BININT
	if (op === 0x8a && need(1)) {
		// LONG1: n little-endian two's-complement bytes (Python ints beyond 32 bits)
		const n = bytes.readUInt8(at + 1);
		if (n <= 6 && at + 2 + n <= bytes.length) {
			return {status: 'int', value: n === 0 ? 0 : bytes.readIntLE(at + 2, n)};
		}
	}
	const shown = op === undefined ? 'the end of what was read' : `opcode 0x${op.toString(16).padStart(2, '0')}`;
	return {status: 'unreadable', why: `its value is ${shown}, not an int or None`};
}

/** `key`'s int or None value in the pickled object of a torch.save file. Never throws. */
export async function readPickleField(io: LayoutIO, file: string, key: string): Promise<PickleField> {
	const head = await io.readRange(file, MAX_PICKLE_BYTES, 'head');
	if (head === null) return {status: 'unreadable', why: 'cannot be read'};
	if (head.length < 4) return {status: 'unreadable', why: `${head.length} bytes: too short for a torch.save file`};
	let pickle: Buffer;
	if (head.readUInt32LE(0) === LOCAL_HEADER) {
		const member = dataPkl(head);
		if (typeof member === 'string') return {status: 'unreadable', why: member};
		pickle = member;
	} else if (head[0] === PICKLE_PROTO) pickle = head;
	else return {status: 'unreadable', why: 'neither a torch.save zip nor a pickle'};
	for (const pattern of keyPatterns(key)) {
		const at = pickle.indexOf(pattern);
		if (at >= 0) return valueAt(pickle, at + pattern.length);
	}
	return {status: 'unreadable', why: `no ${key} in its pickle`};
}

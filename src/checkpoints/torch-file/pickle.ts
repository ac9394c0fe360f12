// A safe pickle interpreter: it runs the pickle machine's stack and memo and builds a data tree (py-value.ts), but
// never imports or calls anything. GLOBAL and STACK_GLOBAL give an opaque {module, name}; REDUCE, NEWOBJ, NEWOBJ_EX,
// INST and OBJ give an opaque call node {callee, args}; BUILD puts the state on it; PERSID and BINPERSID give a
// persistent-id node. So a pickled TrainingArguments or a Lightning checkpoint reads as data, and a hostile pickle
// can do nothing but be refused. Bounded: opcodes run, bytes, stack size and mark depth; anything it cannot read ends
// with a reason naming the opcode and its offset. Never throws.
// Source: CPython Lib/pickle.py (_Unpickler, the opcode table) and Lib/pickletools.py (each opcode's argument),
// protocols 0–5.

import type {PyCall, PyDict, PySequence, PyValue} from './py-value.js';

export interface PickleLimits {
	/** Opcodes run before giving up. */
	readonly maxOps: number;
	/** Values on the stack and marks nested (a pickle that nests deeper is not one torch or Python writes). */
	readonly maxStack: number;
	readonly maxMarks: number;
	/** Memo slots (BINPUT indices are chosen by the pickle: a huge one must not allocate). */
	readonly maxMemo: number;
}

const DEFAULT_PICKLE_LIMITS: PickleLimits = {
	maxOps: 2_000_000,
	maxStack: 100_000,
	maxMarks: 1_000,
	maxMemo: 1_000_000,
};

export type PickleRead =
	/** end: the offset just past STOP (a legacy torch.save file is several pickles in a row). */
	| {readonly status: 'ok'; readonly value: PyValue; readonly end: number}
	| {readonly status: 'unreadable'; readonly why: string};

class Refused extends Error {}

const NONE: PyValue = {type: 'none'};

const hex = (op: number) => `0x${op.toString(16).padStart(2, '0')}`;

/** Python's repr-ish name of an opcode byte, for reasons: 'X' or 0x95. */
function opName(op: number): string {
	return op >= 0x20 && op < 0x7f ? `'${String.fromCharCode(op)}' (${hex(op)})` : hex(op);
}

/** Decodes Python's text protocol's quoted string literal ('abc' or "abc", with backslash escapes) loosely. */
function unquote(text: string): string {
	const quote = text[0];
	if ((quote !== "'" && quote !== '"') || text.at(-1) !== quote || text.length < 2) {
		throw new Refused('a STRING argument that is not quoted');
	}
	return text.slice(1, -1).replace(/\\(x[0-9a-fA-F]{2}|.)/g, (_, esc: string) => {
		if (esc.startsWith('x')) return String.fromCharCode(Number.parseInt(esc.slice(1), 16));
		return ({n: '\n', r: '\r', t: '\t', '\\': '\\', "'": "'", '"': '"'} as Record<string, string>)[esc] ?? esc;
	});
}

/** raw-unicode-escape (UNICODE, protocol 0): latin-1 with \uXXXX and \UXXXXXXXX. */
function rawUnicode(bytes: Buffer): string {
	return bytes
		.toString('latin1')
		.replace(/\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})/g, (_, four?: string, eight?: string) =>
			String.fromCodePoint(Number.parseInt(four ?? eight ?? '0', 16)),
		);
}

/** A little-endian two's-complement int of any length (LONG1, LONG4). */
function longLE(bytes: Buffer): bigint {
	if (bytes.length === 0) return 0n;
	let value = 0n;
	for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
	if (bytes[bytes.length - 1]! & 0x80) value -= 1n << BigInt(bytes.length * 8);
	return value;
}

/** Reads one pickle starting at `start`. */
export function readPickle(bytes: Buffer, start = 0, limits: PickleLimits = DEFAULT_PICKLE_LIMITS): PickleRead {
	let at = start;
	let opAt = start;
	let op = 0;
	const stack: PyValue[] = [];
	const marks: PyValue[][] = [];
	const memo = new Map<number, PyValue>();
	let current = stack;

	const take = (n: number): Buffer => {
		if (n < 0 || at + n > bytes.length)
			throw new Refused(`cut short: ${n} bytes needed at offset ${at}, it ends at ${bytes.length}`);
		const slice = bytes.subarray(at, at + n);
		at += n;
		return slice;
	};
	const u8 = () => take(1).readUInt8(0);
	const u16 = () => take(2).readUInt16LE(0);
	const u32 = () => take(4).readUInt32LE(0);
	const u64 = (): number => {
		const value = take(8).readBigUInt64LE(0);
		if (value > BigInt(bytes.length)) throw new Refused(`a length of ${value} bytes, beyond the pickle`);
		return Number(value);
	};
	const line = (): Buffer => {
		const end = bytes.indexOf(0x0a, at);
		if (end < 0) throw new Refused(`cut short: no end of line after offset ${at}`);
		const text = bytes.subarray(at, end);
		at = end + 1;
		return text;
	};
	const push = (value: PyValue) => {
		if (current.length >= limits.maxStack) throw new Refused(`over ${limits.maxStack} values on the stack`);
		current.push(value);
	};
	const pop = (): PyValue => {
		const value = current.pop();
		if (value === undefined) throw new Refused('pops an empty stack');
		return value;
	};
	const top = (): PyValue => {
		const value = current.at(-1);
		if (value === undefined) throw new Refused('needs a value on an empty stack');
		return value;
	};
	const mark = () => {
		if (marks.length >= limits.maxMarks) throw new Refused(`marks nested over ${limits.maxMarks} deep`);
		marks.push(current);
		current = [];
	};
	const popMark = (): PyValue[] => {
		const items = current;
		const outer = marks.pop();
		if (outer === undefined) throw new Refused('no MARK to pop to');
		current = outer;
		return items;
	};
	const put = (index: number) => {
		if (index > limits.maxMemo) throw new Refused(`memo index ${index} over ${limits.maxMemo}`);
		memo.set(index, top());
	};
	const get = (index: number) => {
		const value = memo.get(index);
		if (value === undefined) throw new Refused(`memo index ${index} was never stored`);
		push(value);
	};
	const seq = (type: PySequence['type'], items: PyValue[]): PySequence => ({type, items});
	const call = (callee: PyValue, args: PyValue, kwargs: PyValue | null = null): PyCall => ({
		type: 'call',
		callee,
		args,
		kwargs,
		state: null,
		entries: [],
		items: [],
	});
	const setItems = (target: PyValue, pairs: PyValue[]) => {
		if (pairs.length % 2 !== 0) throw new Refused('SETITEMS with an odd number of values');
		if (target.type !== 'dict' && target.type !== 'call') throw new Refused(`sets items on a ${target.type}`);
		const entries = (target as PyDict | PyCall).entries;
		for (let i = 0; i < pairs.length; i += 2) entries.push([pairs[i]!, pairs[i + 1]!]);
	};
	const append = (target: PyValue, items: PyValue[]) => {
		if (target.type === 'list' || target.type === 'call') target.items.push(...items);
		else throw new Refused(`appends to a ${target.type}`);
	};
	const text = (buffer: Buffer) => buffer.toString('utf8');
	const int = (value: bigint | number): PyValue => ({type: 'int', value: BigInt(value)});

	try {
		for (let ops = 0; ; ops++) {
			if (ops >= limits.maxOps) throw new Refused(`over ${limits.maxOps} opcodes`);
			opAt = at;
			if (at >= bytes.length) throw new Refused(`cut short: ends at offset ${at} before STOP`);
			op = u8();
			switch (op) {
				case 0x80: // PROTO
					if (u8() > 5) throw new Refused(`protocol ${bytes[at - 1]}, newer than 5`);
					break;
				case 0x95: // FRAME: a length hint only
					u64();
					break;
				case 0x2e: // STOP
					if (marks.length > 0) throw new Refused('STOP inside a MARK');
					return {status: 'ok', value: pop(), end: at};
				case 0x28: // MARK
					mark();
					break;
				case 0x30: // POP
					if (current.length > 0) pop();
					else popMark();
					break;
				case 0x31: // POP_MARK
					popMark();
					break;
				case 0x32: // DUP
					push(top());
					break;
				case 0x4e: // NONE
					push(NONE);
					break;
				case 0x88: // NEWTRUE
				case 0x89: // NEWFALSE
					push({type: 'bool', value: op === 0x88});
					break;
				case 0x49: {
					// INT (protocol 0): decimal text; 01 / 00 are True / False
					const t = text(line()).trim();
					if (t === '01' || t === '00') push({type: 'bool', value: t === '01'});
					else if (/^[-+]?\d+$/.test(t)) push(int(BigInt(t)));
					else throw new Refused(`an INT that is not a number`);
					break;
				}
				case 0x4c: {
					// LONG (protocol 0): decimal text with an optional L
					const t = text(line()).trim().replace(/L$/, '');
					if (!/^[-+]?\d+$/.test(t)) throw new Refused('a LONG that is not a number');
					push(int(BigInt(t)));
					break;
				}
				case 0x4a: // BININT
					push(int(take(4).readInt32LE(0)));
					break;
				case 0x4b: // BININT1
					push(int(u8()));
					break;
				case 0x4d: // BININT2
					push(int(u16()));
					break;
				case 0x8a: // LONG1
					push(int(longLE(take(u8()))));
					break;
				case 0x8b: {
					// LONG4
					const n = take(4).readInt32LE(0);
					if (n < 0) throw new Refused('LONG4 with a negative length');
					push(int(longLE(take(n))));
					break;
				}
				case 0x46: {
					// FLOAT (protocol 0)
					const value = Number(text(line()).trim());
					if (Number.isNaN(value) && !/nan/i.test(text(bytes.subarray(opAt + 1, at)))) {
						throw new Refused('a FLOAT that is not a number');
					}
					push({type: 'float', value});
					break;
				}
				case 0x47: // BINFLOAT: big-endian double
					push({type: 'float', value: take(8).readDoubleBE(0)});
					break;
				case 0x53: // STRING (protocol 0): a quoted literal; Python 3 decodes it as str
					push({type: 'str', value: unquote(text(line()).trim())});
					break;
				case 0x54: // BINSTRING
					push({type: 'str', value: take(take(4).readInt32LE(0)).toString('latin1')});
					break;
				case 0x55: // SHORT_BINSTRING
					push({type: 'str', value: take(u8()).toString('latin1')});
					break;
				case 0x56: // UNICODE (protocol 0)
					push({type: 'str', value: rawUnicode(line())});
					break;
				case 0x58: // BINUNICODE
					push({type: 'str', value: text(take(u32()))});
					break;
				case 0x8c: // SHORT_BINUNICODE
					push({type: 'str', value: text(take(u8()))});
					break;
				case 0x8d: // BINUNICODE8
					push({type: 'str', value: text(take(u64()))});
					break;
				case 0x42: // BINBYTES
					push({type: 'bytes', value: take(u32())});
					break;
				case 0x43: // SHORT_BINBYTES
					push({type: 'bytes', value: take(u8())});
					break;
				case 0x8e: // BINBYTES8
				case 0x96: // BYTEARRAY8
					push({type: 'bytes', value: take(u64())});
					break;
				case 0x98: // READONLY_BUFFER: marks the buffer on top read-only, nothing to do for data
					top();
					break;
				case 0x5d: // EMPTY_LIST
					push(seq('list', []));
					break;
				case 0x6c: // LIST
					push(seq('list', popMark()));
					break;
				case 0x61: {
					// APPEND
					const item = pop();
					append(top(), [item]);
					break;
				}
				case 0x65: {
					// APPENDS
					const items = popMark();
					append(top(), items);
					break;
				}
				case 0x29: // EMPTY_TUPLE
					push(seq('tuple', []));
					break;
				case 0x74: // TUPLE
					push(seq('tuple', popMark()));
					break;
				case 0x85: // TUPLE1
				case 0x86: // TUPLE2
				case 0x87: {
					// TUPLE3
					const n = op - 0x84;
					const items: PyValue[] = [];
					for (let i = 0; i < n; i++) items.unshift(pop());
					push(seq('tuple', items));
					break;
				}
				case 0x7d: // EMPTY_DICT
					push({type: 'dict', entries: []});
					break;
				case 0x64: {
					// DICT
					const dict: PyDict = {type: 'dict', entries: []};
					setItems(dict, popMark());
					push(dict);
					break;
				}
				case 0x73: {
					// SETITEM
					const value = pop();
					const key = pop();
					setItems(top(), [key, value]);
					break;
				}
				case 0x75: {
					// SETITEMS
					const pairs = popMark();
					setItems(top(), pairs);
					break;
				}
				case 0x8f: // EMPTY_SET
					push(seq('set', []));
					break;
				case 0x90: {
					// ADDITEMS
					const items = popMark();
					const set = top();
					if (set.type !== 'set') throw new Refused(`ADDITEMS to a ${set.type}`);
					set.items.push(...items);
					break;
				}
				case 0x91: // FROZENSET
					push(seq('frozenset', popMark()));
					break;
				case 0x63: {
					// GLOBAL: module\nname\n
					const module = text(line());
					push({type: 'global', module, name: text(line())});
					break;
				}
				case 0x93: {
					// STACK_GLOBAL
					const name = pop();
					const module = pop();
					if (module.type !== 'str' || name.type !== 'str') throw new Refused('STACK_GLOBAL of a non-str');
					push({type: 'global', module: module.value, name: name.value});
					break;
				}
				case 0x52: // REDUCE
				case 0x81: {
					// NEWOBJ
					const args = pop();
					push(call(pop(), args));
					break;
				}
				case 0x92: {
					// NEWOBJ_EX
					const kwargs = pop();
					const args = pop();
					push(call(pop(), args, kwargs));
					break;
				}
				case 0x69: {
					// INST: module\nname\n, its args since the MARK
					const module = text(line());
					const name = text(line());
					push(call({type: 'global', module, name}, seq('tuple', popMark())));
					break;
				}
				case 0x6f: {
					// OBJ: the class and its args since the MARK
					const [callee, ...args] = popMark();
					if (callee === undefined) throw new Refused('OBJ without a class');
					push(call(callee, seq('tuple', args)));
					break;
				}
				case 0x62: {
					// BUILD
					const state = pop();
					const target = top();
					if (target.type === 'call') target.state = state;
					else if (target.type === 'dict' && state.type === 'dict') target.entries.push(...state.entries);
					else throw new Refused(`BUILD on a ${target.type}`);
					break;
				}
				case 0x50: // PERSID (protocol 0)
					push({type: 'persid', id: {type: 'str', value: text(line())}});
					break;
				case 0x51: // BINPERSID
					push({type: 'persid', id: pop()});
					break;
				case 0x70: {
					// PUT (protocol 0)
					const index = Number(text(line()).trim());
					if (!Number.isSafeInteger(index) || index < 0) throw new Refused('a PUT index that is not a number');
					put(index);
					break;
				}
				case 0x71: // BINPUT
					put(u8());
					break;
				case 0x72: // LONG_BINPUT
					put(u32());
					break;
				case 0x94: // MEMOIZE
					put(memo.size);
					break;
				case 0x67: {
					// GET (protocol 0)
					const index = Number(text(line()).trim());
					if (!Number.isSafeInteger(index)) throw new Refused('a GET index that is not a number');
					get(index);
					break;
				}
				case 0x68: // BINGET
					get(u8());
					break;
				case 0x6a: // LONG_BINGET
					get(u32());
					break;
				default:
					// EXT1/2/4 (copyreg's extension registry), NEXT_BUFFER (out-of-band data) and anything unknown.
					throw new Refused(`opcode ${opName(op)} at offset ${opAt} is not one this reader knows`);
			}
		}
	} catch (caught) {
		if (caught instanceof Refused) return {status: 'unreadable', why: `pickle ${caught.message}`};
		// A bug here must not take the scan down: say what happened, where.
		const message = caught instanceof Error ? caught.message : String(caught);
		return {status: 'unreadable', why: `pickle unreadable at offset ${opAt} (${opName(op)}): ${message}`};
	}
}

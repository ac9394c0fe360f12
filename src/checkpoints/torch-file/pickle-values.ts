import {type PickleMachine, Refused} from './pickle-machine.js';
import type {PyValue} from './py-value.js';

// The pickle opcodes that push a value (None, bools, ints, floats, strings, bytes) or store and fetch one in the
// memo. Each is read from its argument as CPython's Lib/pickletools.py describes it.

const NONE: PyValue = {type: 'none'};

const text = (buffer: Buffer) => buffer.toString('utf8');
const int = (value: bigint | number): PyValue => ({type: 'int', value: BigInt(value)});

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

/** LONG4's longest int read: a 64 KiB int is already no count or size a checkpoint holds. */
const MAX_LONG_BYTES = 64 * 1024;

/** A little-endian two's-complement int of any length (LONG1, LONG4), in linear time (through hex). */
function longLE(bytes: Buffer): bigint {
	if (bytes.length === 0) return 0n;
	if (bytes.length > MAX_LONG_BYTES) throw new Refused(`an int of ${bytes.length} bytes, over ${MAX_LONG_BYTES}`);
	const value = BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`);
	return bytes[bytes.length - 1]! & 0x80 ? value - (1n << BigInt(bytes.length * 8)) : value;
}

/** Runs `op` if it is a value or memo opcode; false when it is not one. */
export function valueOp(m: PickleMachine, op: number): boolean {
	switch (op) {
		case 0x4e: // NONE
			m.push(NONE);
			return true;
		case 0x88: // NEWTRUE
		case 0x89: // NEWFALSE
			m.push({type: 'bool', value: op === 0x88});
			return true;
		case 0x49: {
			// INT (protocol 0): decimal text; 01 / 00 are True / False
			const t = text(m.line()).trim();
			if (t === '01' || t === '00') m.push({type: 'bool', value: t === '01'});
			else if (/^[-+]?\d+$/.test(t)) m.push(int(BigInt(t)));
			else throw new Refused(`an INT that is not a number`);
			return true;
		}
		case 0x4c: {
			// LONG (protocol 0): decimal text with an optional L
			const t = text(m.line()).trim().replace(/L$/, '');
			if (!/^[-+]?\d+$/.test(t)) throw new Refused('a LONG that is not a number');
			m.push(int(BigInt(t)));
			return true;
		}
		case 0x4a: // BININT
			m.push(int(m.take(4).readInt32LE(0)));
			return true;
		case 0x4b: // BININT1
			m.push(int(m.u8()));
			return true;
		case 0x4d: // BININT2
			m.push(int(m.u16()));
			return true;
		case 0x8a: // LONG1
			m.push(int(longLE(m.take(m.u8()))));
			return true;
		case 0x8b: {
			// LONG4
			const n = m.take(4).readInt32LE(0);
			if (n < 0) throw new Refused('LONG4 with a negative length');
			m.push(int(longLE(m.take(n))));
			return true;
		}
		case 0x46: {
			// FLOAT (protocol 0)
			const written = text(m.line());
			const value = Number(written.trim());
			if (Number.isNaN(value) && !/nan/i.test(written)) {
				throw new Refused('a FLOAT that is not a number');
			}
			m.push({type: 'float', value});
			return true;
		}
		case 0x47: // BINFLOAT: big-endian double
			m.push({type: 'float', value: m.take(8).readDoubleBE(0)});
			return true;
		case 0x53: // STRING (protocol 0): a quoted literal; Python 3 decodes it as str
			m.push({type: 'str', value: unquote(text(m.line()).trim())});
			return true;
		case 0x54: // BINSTRING
			m.push({type: 'str', value: m.take(m.take(4).readInt32LE(0)).toString('latin1')});
			return true;
		case 0x55: // SHORT_BINSTRING
			m.push({type: 'str', value: m.take(m.u8()).toString('latin1')});
			return true;
		case 0x56: // UNICODE (protocol 0)
			m.push({type: 'str', value: rawUnicode(m.line())});
			return true;
		case 0x58: // BINUNICODE
			m.push({type: 'str', value: text(m.take(m.u32()))});
			return true;
		case 0x8c: // SHORT_BINUNICODE
			m.push({type: 'str', value: text(m.take(m.u8()))});
			return true;
		case 0x8d: // BINUNICODE8
			m.push({type: 'str', value: text(m.take(m.u64()))});
			return true;
		case 0x42: // BINBYTES
			m.push({type: 'bytes', value: m.take(m.u32())});
			return true;
		case 0x43: // SHORT_BINBYTES
			m.push({type: 'bytes', value: m.take(m.u8())});
			return true;
		case 0x8e: // BINBYTES8
		case 0x96: // BYTEARRAY8
			m.push({type: 'bytes', value: m.take(m.u64())});
			return true;
		case 0x98: // READONLY_BUFFER: marks the buffer on top read-only, nothing to do for data
			m.top();
			return true;
		case 0x70: {
			// PUT (protocol 0)
			const index = Number(text(m.line()).trim());
			if (!Number.isSafeInteger(index) || index < 0) throw new Refused('a PUT index that is not a number');
			m.put(index);
			return true;
		}
		case 0x71: // BINPUT
			m.put(m.u8());
			return true;
		case 0x72: // LONG_BINPUT
			m.put(m.u32());
			return true;
		case 0x94: // MEMOIZE
			m.put(m.memoSize);
			return true;
		case 0x67: {
			// GET (protocol 0)
			const index = Number(text(m.line()).trim());
			if (!Number.isSafeInteger(index)) throw new Refused('a GET index that is not a number');
			m.get(index);
			return true;
		}
		case 0x68: // BINGET
			m.get(m.u8());
			return true;
		case 0x6a: // LONG_BINGET
			m.get(m.u32());
			return true;
		default:
			return false;
	}
}

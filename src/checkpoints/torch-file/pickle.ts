// A safe pickle interpreter: it runs the pickle machine's stack and memo and builds a data tree (py-value.ts), but
// never imports or calls anything. GLOBAL and STACK_GLOBAL give an opaque {module, name}; REDUCE, NEWOBJ, NEWOBJ_EX,
// INST and OBJ give an opaque call node {callee, args}; BUILD puts the state on it; PERSID and BINPERSID give a
// persistent-id node. So a pickled TrainingArguments or a Lightning checkpoint reads as data, and a hostile pickle
// can do nothing but be refused. Bounded: opcodes run, bytes, stack size and mark depth; anything it cannot read ends
// with a reason naming the opcode and its offset. Never throws.
// Source: CPython Lib/pickle.py (_Unpickler, the opcode table) and Lib/pickletools.py (each opcode's argument),
// protocols 0–5.

import {type PickleLimits, PickleMachine, Refused} from './pickle-machine.js';
import {objectOp} from './pickle-objects.js';
import {valueOp} from './pickle-values.js';
import type {PyValue} from './py-value.js';

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

const hex = (op: number) => `0x${op.toString(16).padStart(2, '0')}`;

/** Python's repr-ish name of an opcode byte, for reasons: 'X' or 0x95. */
function opName(op: number): string {
	return op >= 0x20 && op < 0x7f ? `'${String.fromCharCode(op)}' (${hex(op)})` : hex(op);
}

/** The machine's own opcodes (protocol, frames, marks, the stack); the value at STOP, else undefined. */
function controlOp(m: PickleMachine, op: number): PyValue | undefined {
	switch (op) {
		case 0x80: // PROTO
			if (m.u8() > 5) throw new Refused(`protocol ${m.bytes[m.at - 1]}, newer than 5`);
			break;
		case 0x95: // FRAME: a length hint only
			m.u64();
			break;
		case 0x2e: // STOP
			if (m.marked) throw new Refused('STOP inside a MARK');
			return m.pop();
		case 0x28: // MARK
			m.mark();
			break;
		case 0x30: // POP
			if (!m.stackEmpty) m.pop();
			else m.popMark();
			break;
		case 0x31: // POP_MARK
			m.popMark();
			break;
		case 0x32: // DUP
			m.push(m.top());
			break;
		default:
			if (!valueOp(m, op) && !objectOp(m, op)) {
				// EXT1/2/4 (copyreg's extension registry), NEXT_BUFFER (out-of-band data) and anything unknown.
				throw new Refused(`opcode ${opName(op)} at offset ${m.at - 1} is not one this reader knows`);
			}
	}
	return undefined;
}

/** Reads one pickle starting at `start`. */
export function readPickle(bytes: Buffer, start = 0, limits: PickleLimits = DEFAULT_PICKLE_LIMITS): PickleRead {
	const m = new PickleMachine(bytes, start, limits);
	let opAt = start;
	let op = 0;
	try {
		for (let ops = 0; ; ops++) {
			if (ops >= limits.maxOps) throw new Refused(`over ${limits.maxOps} opcodes`);
			opAt = m.at;
			if (m.at >= bytes.length) throw new Refused(`cut short: ends at offset ${m.at} before STOP`);
			op = m.u8();
			const value = controlOp(m, op);
			if (value !== undefined) return {status: 'ok', value, end: m.at};
		}
	} catch (caught) {
		if (caught instanceof Refused) return {status: 'unreadable', why: `pickle ${caught.message}`};
		// A bug here must not take the scan down: say what happened, where.
		const message = caught instanceof Error ? caught.message : String(caught);
		return {status: 'unreadable', why: `pickle unreadable at offset ${opAt} (${opName(op)}): ${message}`};
	}
}

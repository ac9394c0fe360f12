import {type PickleMachine, Refused} from './pickle-machine.js';
import type {PyCall, PyDict, PySequence, PyValue} from './py-value.js';

// The pickle opcodes that build containers (lists, tuples, dicts, sets) and objects. Nothing is imported or called:
// GLOBAL and STACK_GLOBAL give an opaque {module, name}, REDUCE, NEWOBJ, NEWOBJ_EX, INST and OBJ an opaque call
// node {callee, args}, BUILD puts the state on it, PERSID and BINPERSID give a persistent-id node.

const text = (buffer: Buffer) => buffer.toString('utf8');
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

/** Runs `op` if it is a container or object opcode; false when it is not one. */
export function objectOp(m: PickleMachine, op: number): boolean {
	switch (op) {
		case 0x5d: // EMPTY_LIST
			m.push(seq('list', []));
			return true;
		case 0x6c: // LIST
			m.push(seq('list', m.popMark()));
			return true;
		case 0x61: {
			// APPEND
			const item = m.pop();
			append(m.top(), [item]);
			return true;
		}
		case 0x65: {
			// APPENDS
			const items = m.popMark();
			append(m.top(), items);
			return true;
		}
		case 0x29: // EMPTY_TUPLE
			m.push(seq('tuple', []));
			return true;
		case 0x74: // TUPLE
			m.push(seq('tuple', m.popMark()));
			return true;
		case 0x85: // TUPLE1
		case 0x86: // TUPLE2
		case 0x87: {
			// TUPLE3
			const n = op - 0x84;
			const items: PyValue[] = [];
			for (let i = 0; i < n; i++) items.unshift(m.pop());
			m.push(seq('tuple', items));
			return true;
		}
		case 0x7d: // EMPTY_DICT
			m.push({type: 'dict', entries: []});
			return true;
		case 0x64: {
			// DICT
			const dict: PyDict = {type: 'dict', entries: []};
			setItems(dict, m.popMark());
			m.push(dict);
			return true;
		}
		case 0x73: {
			// SETITEM
			const value = m.pop();
			const key = m.pop();
			setItems(m.top(), [key, value]);
			return true;
		}
		case 0x75: {
			// SETITEMS
			const pairs = m.popMark();
			setItems(m.top(), pairs);
			return true;
		}
		case 0x8f: // EMPTY_SET
			m.push(seq('set', []));
			return true;
		case 0x90: {
			// ADDITEMS
			const items = m.popMark();
			const set = m.top();
			if (set.type !== 'set') throw new Refused(`ADDITEMS to a ${set.type}`);
			set.items.push(...items);
			return true;
		}
		case 0x91: // FROZENSET
			m.push(seq('frozenset', m.popMark()));
			return true;
		case 0x63: {
			// GLOBAL: module\nname\n
			const module = text(m.line());
			m.push({type: 'global', module, name: text(m.line())});
			return true;
		}
		case 0x93: {
			// STACK_GLOBAL
			const name = m.pop();
			const module = m.pop();
			if (module.type !== 'str' || name.type !== 'str') throw new Refused('STACK_GLOBAL of a non-str');
			m.push({type: 'global', module: module.value, name: name.value});
			return true;
		}
		case 0x52: // REDUCE
		case 0x81: {
			// NEWOBJ
			const args = m.pop();
			m.push(call(m.pop(), args));
			return true;
		}
		case 0x92: {
			// NEWOBJ_EX
			const kwargs = m.pop();
			const args = m.pop();
			m.push(call(m.pop(), args, kwargs));
			return true;
		}
		case 0x69: {
			// INST: module\nname\n, its args since the MARK
			const module = text(m.line());
			const name = text(m.line());
			m.push(call({type: 'global', module, name}, seq('tuple', m.popMark())));
			return true;
		}
		case 0x6f: {
			// OBJ: the class and its args since the MARK
			const [callee, ...args] = m.popMark();
			if (callee === undefined) throw new Refused('OBJ without a class');
			m.push(call(callee, seq('tuple', args)));
			return true;
		}
		case 0x62: {
			// BUILD
			const state = m.pop();
			const target = m.top();
			if (target.type === 'call') target.state = state;
			else if (target.type === 'dict' && state.type === 'dict') target.entries.push(...state.entries);
			else throw new Refused(`BUILD on a ${target.type}`);
			return true;
		}
		case 0x50: // PERSID (protocol 0)
			m.push({type: 'persid', id: {type: 'str', value: text(m.line())}});
			return true;
		case 0x51: // BINPERSID
			m.push({type: 'persid', id: m.pop()});
			return true;
		default:
			return false;
	}
}

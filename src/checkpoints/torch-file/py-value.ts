// The data tree the safe pickle interpreter (pickle.ts) builds: Python's plain values as themselves, and everything
// that would run code when Python unpickles it (a class, a call, a persistent id) as an opaque node that only says
// what it names. Nothing here imports or calls anything: a pickled TrainingArguments becomes a `call` node whose
// callee is the global `transformers.training_args.TrainingArguments` and whose state is its __dict__.

export type PyValue =
	| {readonly type: 'none'}
	| {readonly type: 'bool'; readonly value: boolean}
	/** Any size: LONG1/LONG4 carry Python's unbounded ints. */
	| {readonly type: 'int'; readonly value: bigint}
	| {readonly type: 'float'; readonly value: number}
	| {readonly type: 'str'; readonly value: string}
	| {readonly type: 'bytes'; readonly value: Buffer}
	| PySequence
	| PyDict
	/** GLOBAL / STACK_GLOBAL: a name the pickle would import; never imported. */
	| {readonly type: 'global'; readonly module: string; readonly name: string}
	| PyCall
	/** BINPERSID / PERSID: the pickler's persistent_id (torch: a storage reference). */
	| {readonly type: 'persid'; readonly id: PyValue};

export interface PySequence {
	readonly type: 'tuple' | 'list' | 'set' | 'frozenset';
	/** Mutable while the pickle is read (APPEND, ADDITEMS to a memoized list); read-only to everyone else. */
	readonly items: PyValue[];
}

export interface PyDict {
	readonly type: 'dict';
	/** In pickle order; keys may be any value (HF's log_history is JSON, but a pickle can key by int or tuple). */
	readonly entries: Array<readonly [PyValue, PyValue]>;
}

/**
 * REDUCE / NEWOBJ / NEWOBJ_EX / INST / OBJ: what Python would call, with what. BUILD puts the object's state here;
 * SETITEM(S) and APPEND(S) on it (an OrderedDict, a list subclass) go to entries and items.
 */
export interface PyCall {
	readonly type: 'call';
	readonly callee: PyValue;
	readonly args: PyValue;
	readonly kwargs: PyValue | null;
	state: PyValue | null;
	readonly entries: Array<readonly [PyValue, PyValue]>;
	readonly items: PyValue[];
}

/** `module.name` of a global, or of a call's callee when it is one; null otherwise. */
export function globalName(node: PyValue | undefined): string | null {
	if (node === undefined) return null;
	if (node.type === 'global') return `${node.module}.${node.name}`;
	if (node.type === 'call' && node.callee.type === 'global') return `${node.callee.module}.${node.callee.name}`;
	return null;
}

/**
 * An object's attribute dict: the state BUILD gave a call node (a dict, or the first of a (state, slotstate) tuple),
 * or a plain dict as itself. Undefined when there is none.
 */
export function objectState(node: PyValue | undefined): PyValue | undefined {
	if (node === undefined) return undefined;
	if (node.type === 'dict') return node;
	if (node.type !== 'call' || node.state === null) return undefined;
	const state = node.state;
	if (state.type === 'tuple' && state.items.length === 2) return state.items[0];
	return state;
}

/** The (key, value) pairs of a dict, or of a call node that was given items (collections.OrderedDict). */
export function dictEntries(node: PyValue | undefined): ReadonlyArray<readonly [PyValue, PyValue]> {
	if (node === undefined) return [];
	if (node.type === 'dict' || node.type === 'call') return node.entries;
	return [];
}

/** The value under a str key of a dict (or an OrderedDict call node); the last one wins, as in Python. */
export function dictGet(node: PyValue | undefined, key: string): PyValue | undefined {
	let value: PyValue | undefined;
	for (const [k, v] of dictEntries(node)) if (k.type === 'str' && k.value === key) value = v;
	return value;
}

/** The str keys of a dict, in order. */
export function dictKeys(node: PyValue | undefined): string[] {
	return dictEntries(node).flatMap(([k]) => (k.type === 'str' ? [k.value] : []));
}

/** An attribute of a pickled object (its state dict's entry), or a dict's entry. */
export function attr(node: PyValue | undefined, key: string): PyValue | undefined {
	return dictGet(objectState(node), key);
}

export function isNone(node: PyValue | undefined): boolean {
	return node?.type === 'none';
}

/** An int as a JS number when it is a safe integer (a bool is not an int here); null otherwise. */
export function pyInt(node: PyValue | undefined): number | null {
	if (node?.type !== 'int') return null;
	const value = Number(node.value);
	return Number.isSafeInteger(value) ? value : null;
}

/** A float, or an int as a number; null for anything else. */
export function pyNumber(node: PyValue | undefined): number | null {
	if (node?.type === 'float') return node.value;
	return pyInt(node);
}

export function pyStr(node: PyValue | undefined): string | null {
	return node?.type === 'str' ? node.value : null;
}

export function pyBool(node: PyValue | undefined): boolean | null {
	return node?.type === 'bool' ? node.value : null;
}

/** The items of a tuple, list, set or frozenset; [] for anything else. */
export function pyItems(node: PyValue | undefined): readonly PyValue[] {
	if (node === undefined) return [];
	return node.type === 'tuple' || node.type === 'list' || node.type === 'set' || node.type === 'frozenset'
		? node.items
		: [];
}

/** A call's positional arguments (its args tuple's items); [] when it is not a call. */
export function callArgs(node: PyValue | undefined): readonly PyValue[] {
	return node?.type === 'call' ? pyItems(node.args) : [];
}

/**
 * An enum member's value: pickled as a call of its class with the value (`SaveStrategy('steps')`, Python's
 * Enum.__reduce_ex__). Undefined when the node is not a one-argument call.
 */
export function enumValue(node: PyValue | undefined): PyValue | undefined {
	const args = callArgs(node);
	return args.length === 1 ? args[0] : undefined;
}

const REPR_DEPTH = 3;
const REPR_ITEMS = 4;

/** Python-like words for a value, short and cycle-safe, for showing what was read: 2, None, 'steps', SaveStrategy('steps'). */
export function pyRepr(node: PyValue | undefined, depth = 0): string {
	if (node === undefined) return '?';
	if (depth > REPR_DEPTH) return '…';
	const list = (items: readonly PyValue[]) => {
		const shown = items.slice(0, REPR_ITEMS).map(item => pyRepr(item, depth + 1));
		if (items.length > REPR_ITEMS) shown.push('…');
		return shown.join(', ');
	};
	switch (node.type) {
		case 'none':
			return 'None';
		case 'bool':
			return node.value ? 'True' : 'False';
		case 'int':
			return node.value.toString();
		case 'float':
			return Number.isInteger(node.value) ? node.value.toFixed(1) : String(node.value);
		case 'str':
			return `'${node.value.length > 60 ? `${node.value.slice(0, 60)}…` : node.value}'`;
		case 'bytes':
			return `<${node.value.length} bytes>`;
		case 'tuple':
			return `(${list(node.items)}${node.items.length === 1 ? ',' : ''})`;
		case 'list':
			return `[${list(node.items)}]`;
		case 'set':
		case 'frozenset':
			return `{${list(node.items)}}`;
		case 'dict':
			return `{${node.entries.length} entries}`;
		case 'global':
			return `${node.module}.${node.name}`;
		case 'persid':
			return `persistent_id(${pyRepr(node.id, depth + 1)})`;
		case 'call': {
			const callee = node.callee.type === 'global' ? node.callee.name : pyRepr(node.callee, depth + 1);
			return `${callee}(${list(pyItems(node.args))})`;
		}
	}
}

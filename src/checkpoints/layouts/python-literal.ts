// A Python repr read as data, never evaluated: Lightning names each callback's state by the class name and the repr
// of its settings (Callback._generate_state_key: f"{qualname}{repr(kwargs)}"), so reading what a ModelCheckpoint was
// told means reading that repr. Only what a repr of plain settings holds is understood: str, int, float, None, True,
// False, dicts, lists, tuples and a call such as `datetime.timedelta(seconds=1)` (kept as its name and arguments,
// never run). Anything else is a problem named with its offset.
// Source: Lightning-AI/pytorch-lightning src/lightning/pytorch/callbacks/callback.py: Callback._generate_state_key;
// Python's own repr of str (quotes and backslash escapes), int, float, None, bool, dict, list, tuple, timedelta.

export type PyLiteral =
	| {readonly kind: 'str'; readonly value: string; readonly text: string}
	| {readonly kind: 'number'; readonly value: number; readonly text: string}
	| {readonly kind: 'none'; readonly text: string}
	| {readonly kind: 'bool'; readonly value: boolean; readonly text: string}
	| {readonly kind: 'dict'; readonly entries: ReadonlyArray<readonly [PyLiteral, PyLiteral]>; readonly text: string}
	| {readonly kind: 'list'; readonly items: readonly PyLiteral[]; readonly text: string}
	| {
			readonly kind: 'call';
			readonly name: string;
			readonly args: readonly PyLiteral[];
			readonly kwargs: ReadonlyMap<string, PyLiteral>;
			readonly text: string;
	  };

/** A repr nested deeper than this is not a callback's settings. */
const MAX_DEPTH = 32;

const ESCAPES: Record<string, string> = {n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0'};

class Reader {
	at = 0;
	readonly text: string;
	constructor(text: string) {
		this.text = text;
	}

	fail(why: string): never {
		throw new Error(`${why} at offset ${this.at}`);
	}

	skipSpace(): void {
		while (this.at < this.text.length && /\s/.test(this.text[this.at] ?? '')) this.at += 1;
	}

	expect(char: string): void {
		this.skipSpace();
		if (this.text[this.at] !== char) this.fail(`expected ${JSON.stringify(char)}`);
		this.at += 1;
	}

	/** Consumes `char` when it comes next. */
	accept(char: string): boolean {
		this.skipSpace();
		if (this.text[this.at] !== char) return false;
		this.at += 1;
		return true;
	}

	value(depth: number): PyLiteral {
		if (depth > MAX_DEPTH) this.fail('nested too deep');
		this.skipSpace();
		const start = this.at;
		const char = this.text[this.at];
		if (char === "'" || char === '"') return this.str();
		if (char === '{') return this.dict(depth, start);
		if (char === '[' || char === '(') return this.list(depth, start, char === '[' ? ']' : ')');
		if (char !== undefined && /[-+\d.]/.test(char)) return this.number();
		if (char !== undefined && /[A-Za-z_]/.test(char)) return this.name(depth, start);
		return this.fail(char === undefined ? 'unexpected end' : `unexpected ${JSON.stringify(char)}`);
	}

	str(): PyLiteral {
		const start = this.at;
		const quote = this.text[this.at];
		this.at += 1;
		let value = '';
		for (;;) {
			const char = this.text[this.at];
			if (char === undefined) this.fail('unterminated string');
			this.at += 1;
			if (char === quote) break;
			if (char !== '\\') {
				value += char;
				continue;
			}
			const next = this.text[this.at] ?? '';
			const hex = next === 'x' ? 2 : next === 'u' ? 4 : next === 'U' ? 8 : 0;
			if (hex > 0) {
				const digits = this.text.slice(this.at + 1, this.at + 1 + hex);
				if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits)) this.fail(`bad \\${next} escape`);
				value += String.fromCodePoint(Number.parseInt(digits, 16));
				this.at += 1 + hex;
			} else if (next in ESCAPES) {
				value += ESCAPES[next];
				this.at += 1;
			} else this.fail(`unknown escape \\${next}`);
		}
		return {kind: 'str', value, text: this.text.slice(start, this.at)};
	}

	number(): PyLiteral {
		const match = /^[-+]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d+)?/.exec(this.text.slice(this.at));
		if (!match) return this.fail('not a number');
		const text = match[0];
		this.at += text.length;
		const value = Number(text.replaceAll('_', ''));
		if (!Number.isFinite(value)) this.fail(`not a number: ${text}`);
		return {kind: 'number', value, text};
	}

	/** None, True, False, inf/nan (as float repr writes them), or a call of a dotted name. */
	name(depth: number, start: number): PyLiteral {
		const match = /^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*/.exec(this.text.slice(this.at));
		const name = match?.[0] ?? '';
		this.at += name.length;
		if (name === 'None') return {kind: 'none', text: name};
		if (name === 'True' || name === 'False') return {kind: 'bool', value: name === 'True', text: name};
		if (name === 'inf' || name === 'nan') return {kind: 'number', value: name === 'inf' ? Infinity : NaN, text: name};
		if (!this.accept('(')) return this.fail(`bare name ${name}`);
		const args: PyLiteral[] = [];
		const kwargs = new Map<string, PyLiteral>();
		while (!this.accept(')')) {
			if (args.length + kwargs.size > 0) this.expect(',');
			if (this.accept(')')) break;
			this.skipSpace();
			const keyword = /^([A-Za-z_]\w*)\s*=(?!=)/.exec(this.text.slice(this.at));
			if (keyword) {
				this.at += keyword[0].length;
				kwargs.set(keyword[1] ?? '', this.value(depth + 1));
			} else if (kwargs.size > 0) this.fail('positional argument after a keyword one');
			else args.push(this.value(depth + 1));
		}
		return {kind: 'call', name, args, kwargs, text: this.text.slice(start, this.at)};
	}

	dict(depth: number, start: number): PyLiteral {
		this.expect('{');
		const entries: [PyLiteral, PyLiteral][] = [];
		while (!this.accept('}')) {
			if (entries.length > 0) this.expect(',');
			if (this.accept('}')) break;
			const key = this.value(depth + 1);
			this.expect(':');
			entries.push([key, this.value(depth + 1)]);
		}
		return {kind: 'dict', entries, text: this.text.slice(start, this.at)};
	}

	list(depth: number, start: number, close: string): PyLiteral {
		this.at += 1;
		const items: PyLiteral[] = [];
		while (!this.accept(close)) {
			if (items.length > 0) this.expect(',');
			if (this.accept(close)) break;
			items.push(this.value(depth + 1));
		}
		return {kind: 'list', items, text: this.text.slice(start, this.at)};
	}
}

/** One Python literal filling the whole text, or the problem with it ("expected ':' at offset 12"). */
export function parsePyLiteral(text: string): PyLiteral | {readonly problem: string} {
	const reader = new Reader(text);
	try {
		const value = reader.value(0);
		reader.skipSpace();
		if (reader.at !== text.length) reader.fail('text after the value');
		return value;
	} catch (caught) {
		return {problem: caught instanceof Error ? caught.message : String(caught)};
	}
}

/** A dict's value under a str key, or undefined. */
export function literalGet(dict: PyLiteral, key: string): PyLiteral | undefined {
	if (dict.kind !== 'dict') return undefined;
	return dict.entries.find(([k]) => k.kind === 'str' && k.value === key)?.[1];
}

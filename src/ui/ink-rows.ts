import {readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

// Ink 6.8 composes every frame from scratch: Output.get() lays each line of each <Text> into a grid of one object
// per cell (tokenising its ANSI codes, measuring each character, a Set of styles per cell), then serialises every
// row back into a string: for the whole screen, on every frame, with caches that live for that one frame. In the
// TUI's budget scenario (120×40, a frame a second) that was over half its CPU and ~15 MB of garbage a second
// (bench/profile-tui.mjs). The rows of traintop's screen are mostly one line of text at column 0, or two panes'
// lines side by side, each with its styles closed (chalk closes what it opens) and made of characters one column
// wide: such a row reads on the terminal exactly as its lines laid end to end, padded with spaces between them,
// which is what this composes. Anything else (lines that overlap, as a box over the panes does; clipping; an
// escape other than a closed SGR colour or style; wide, zero-width or combining characters) goes through Ink's own
// code, on a grid of just those rows, its rows memoised by what was written on them
// and its per-line caches kept across frames. The bytes may order SGR codes differently from Ink's; the cells on
// the screen are the same (test/ui/ink-rows.test.tsx checks that against Ink's own composition).
//
// It is installed into the Ink it was written against (6.8.x) only, and only when Output still has the shape it
// expects; otherwise Ink is left as it is.

type Transformer = (line: string, index: number) => string;

interface Write {
	readonly type: 'write';
	readonly x: number;
	readonly y: number;
	readonly text: string;
	readonly transformers: readonly Transformer[];
}
type Operation = Write | {readonly type: 'clip'} | {readonly type: 'unclip'};

interface OutputCaches {
	readonly styledChars: Map<string, unknown>;
	readonly widths: Map<string, number>;
	readonly blockWidths: Map<string, number>;
}

interface Output {
	readonly width: number;
	readonly height: number;
	readonly operations: Operation[];
	caches: OutputCaches;
	get(): {output: string; height: number};
}

interface OutputClass {
	new (options: {width: number; height: number}): Output;
	readonly prototype: Output;
}

/** Rows Ink's way kept, and entries in the shared per-line caches, before they are dropped (a screen is 40–60 rows). */
const MAX_ROWS = 2000;
const MAX_CACHED = 20_000;

/** Where Ink's build lives (the package exports only its entry, not output.js). */
function inkBuildDir(): string | null {
	try {
		return path.dirname(createRequire(import.meta.url).resolve('ink'));
	} catch {
		return null;
	}
}

let original: (() => {output: string; height: number}) | null = null;
let outputClass: OutputClass | null = null;

/**
 * Installs the row composer into Ink's Output; resolves true when it is in place (it stays for the process's
 * life, across renders). Does nothing and resolves false for an Ink it was not written for.
 */
export async function installInkRows(): Promise<boolean> {
	if (original !== null) return true;
	const dir = inkBuildDir();
	if (dir === null) return false;
	try {
		const {version} = JSON.parse(readFileSync(path.join(dir, '..', 'package.json'), 'utf8')) as {version?: string};
		if (!version?.startsWith('6.8.')) return false;
		const Output = ((await import(pathToFileURL(path.join(dir, 'output.js')).href)) as {default: OutputClass}).default;
		const probe = new Output({width: 1, height: 1});
		const caches = probe.caches;
		if (
			typeof Output.prototype.get !== 'function' ||
			!Array.isArray(probe.operations) ||
			!(caches?.styledChars instanceof Map) ||
			!(caches.widths instanceof Map)
		) {
			return false;
		}
		original = Output.prototype.get;
		outputClass = Output;
		Output.prototype.get = composer(Output, original, caches.constructor as new () => OutputCaches);
		return true;
	} catch {
		return false;
	}
}

/** Puts Ink's own Output.get back (tests compare the two). */
export function uninstallInkRows(): void {
	if (original === null || outputClass === null) return;
	outputClass.prototype.get = original;
	original = null;
	outputClass = null;
}

// SGR parameters by the attribute they set: each family is closed by its own code (or 0).
const BOLD_DIM = 1;
const ITALIC = 2;
const UNDERLINE = 4;
const BLINK = 8;
const INVERSE = 16;
const HIDDEN = 32;
const STRIKE = 64;
const FOREGROUND = 128;
const BACKGROUND = 256;
const OVERLINE = 512;

function sgrEffect(code: number): {readonly open: number} | {readonly close: number} | null {
	if (code === 0) return {close: -1};
	if (code === 1 || code === 2) return {open: BOLD_DIM};
	if (code === 22) return {close: BOLD_DIM};
	if (code === 3) return {open: ITALIC};
	if (code === 23) return {close: ITALIC};
	if (code === 4) return {open: UNDERLINE};
	if (code === 24) return {close: UNDERLINE};
	if (code === 5 || code === 6) return {open: BLINK};
	if (code === 25) return {close: BLINK};
	if (code === 7) return {open: INVERSE};
	if (code === 27) return {close: INVERSE};
	if (code === 8) return {open: HIDDEN};
	if (code === 28) return {close: HIDDEN};
	if (code === 9) return {open: STRIKE};
	if (code === 29) return {close: STRIKE};
	if ((code >= 30 && code <= 38) || (code >= 90 && code <= 97)) return {open: FOREGROUND};
	if (code === 39) return {close: FOREGROUND};
	if ((code >= 40 && code <= 48) || (code >= 100 && code <= 107)) return {open: BACKGROUND};
	if (code === 49) return {close: BACKGROUND};
	if (code === 53) return {open: OVERLINE};
	if (code === 55) return {close: OVERLINE};
	return null;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is what an SGR code starts with.
const SGR = /\u001B\[([\d;]*)m/g;

/**
 * Whether a line's escapes are all SGR codes (colours and styles) and leave nothing open at its end: then the
 * line, written as it is, leaves the cells after it as Ink's serialisation would.
 */
export function closedStyles(line: string): boolean {
	if (!line.includes('\u001B') && !line.includes('\u009B')) return true;
	if (line.includes('\u009B')) return false;
	let open = 0;
	let codes = 0;
	for (const match of line.matchAll(SGR)) {
		codes++;
		const params = match[1] === '' ? ['0'] : match[1]!.split(';');
		const first = Number(params[0]);
		// Several attributes in one code, other than a 256-colour or RGB colour, are left to Ink.
		if (params.length > 1 && first !== 38 && first !== 48) return false;
		const effect = sgrEffect(first);
		if (effect === null) return false;
		if ('open' in effect) open |= effect.open;
		else open &= ~effect.close;
	}
	return open === 0 && codes === line.split('\u001B').length - 1;
}

/**
 * Characters that take exactly one column each, for Ink's grid and the terminal alike, and that Ink's grid keeps
 * as they are (it segments by grapheme: a combining mark right after an escape code is dropped, for one): ASCII,
 * Latin (no soft hyphen, no combining marks), punctuation, arrows, maths, box drawing, blocks and shapes (not the
 * two wide emoji squares), check marks, braille. What traintop's lines are made of; a line with anything else
 * (a command line in another script, an emoji) goes Ink's way.
 */
const NARROW =
	/^[\u0020-\u007E\u00A0-\u00AC\u00AE-\u02FF\u2010-\u2027\u2030-\u205E\u2190-\u22FF\u2500-\u25FC\u2713-\u2718\u2800-\u28FF]*$/;

/** Columns of a line of NARROW characters (its styles left out); null for any other line. */
function narrowColumns(line: string): number | null {
	const visible = line.includes('\u001B') ? line.replace(SGR, '') : line;
	return NARROW.test(visible) ? visible.length : null;
}

function composer(
	Output: OutputClass,
	originalGet: () => {output: string; height: number},
	Caches: new () => OutputCaches,
): () => {output: string; height: number} {
	let shared = new Caches();
	const inkRows = new Map<string, string>();

	/** The row as its lines laid end to end at their columns, spaces between; null when it must be Ink's. */
	const compose = (writes: ReadonlyArray<readonly [number, string]>, width: number): string | null => {
		let row = '';
		let column = 0;
		for (const [x, line] of writes) {
			if (x < column || x > width || !closedStyles(line)) return null;
			const columns = narrowColumns(line);
			if (columns === null) return null;
			row += ' '.repeat(x - column) + line;
			column = x + columns;
		}
		return row.trimEnd();
	};

	return function get(this: Output) {
		const {width, height, operations} = this;
		// Each row's writes, as Ink lays them: [x, the line after its transformers], in order.
		const rows: Array<Array<[number, string]>> = Array.from({length: height}, () => []);
		for (const operation of operations) {
			if (operation.type !== 'write') return originalGet.call(this); // clipping: Ink's own way
			const {text, transformers, x, y} = operation;
			let offsetY = 0;
			for (const [index, original] of text.split('\n').entries()) {
				const row = rows[y + offsetY];
				// As Ink does: a line off the grid is skipped, and the ones after it land on the same missing row.
				if (!row) continue;
				let line = original;
				for (const transformer of transformers) line = transformer(line, index);
				if (line.includes('\n')) return originalGet.call(this);
				row.push([x, line]);
				offsetY++;
			}
		}
		if (shared.styledChars.size + shared.widths.size + shared.blockWidths.size > MAX_CACHED) shared = new Caches();
		if (inkRows.size > MAX_ROWS) inkRows.clear();
		const out: string[] = [];
		const inkWay: Array<{readonly at: number; readonly key: string}> = [];
		for (const [at, writes] of rows.entries()) {
			const composed = compose(writes, width);
			if (composed !== null) {
				out.push(composed);
				continue;
			}
			let key = `${width}`;
			for (const [x, line] of writes) key += `\u0000${x}\u0000${line}`;
			const known = inkRows.get(key);
			out.push(known ?? '');
			if (known === undefined) inkWay.push({at, key});
		}
		if (inkWay.length > 0) {
			// Ink's own composition, on a grid of just these rows, with caches that outlive the frame.
			const grid = new Output({width, height: inkWay.length});
			grid.caches = shared;
			for (const [y, {at}] of inkWay.entries()) {
				for (const [x, line] of rows[at]!) grid.operations.push({type: 'write', x, y, text: line, transformers: []});
			}
			const lines = originalGet.call(grid).output.split('\n');
			for (const [y, {at, key}] of inkWay.entries()) {
				const line = lines[y] ?? '';
				inkRows.set(key, line);
				out[at] = line;
			}
		}
		return {output: out.join('\n'), height};
	};
}

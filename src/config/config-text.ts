import {UsageError} from '../core/errors.js';
import {readRegular} from '../system/safe-read.js';

// The text of a file the user hands traintop as configuration (--config, the default XDG file, --cluster's
// cluster.yaml, preflight's --train-config). Each of them is read before anything else runs, `signal` included, so a
// bad one must fail fast instead of hanging: a FIFO there blocked every command on its open(2), /dev/urandom read
// without end, an 11 MB YAML took preflight 1 GB and 17 s, and a deeply nested one overflowed the parser's stack.

/** The largest config file read: a 3000-node cluster.yaml is ~300 KB; a larger one is a mistake, not a config. */
export const CONFIG_MAX_BYTES = 1024 * 1024;

/** How deep a config's mappings and lists may nest; real ones stay under 10, the YAML parser recurses per level. */
const CONFIG_MAX_DEPTH = 64;

/**
 * The file's text; null when it does not exist and `missingIsNone` (the default file, only looked for). Anything
 * but a regular file of at most CONFIG_MAX_BYTES is a UsageError that names the file (as `what`) and the rule.
 */
export async function readConfigText(
	file: string,
	what: string,
	{missingIsNone}: {readonly missingIsNone: boolean},
): Promise<string | null> {
	const read = await readRegular(file, CONFIG_MAX_BYTES, 'head', CONFIG_MAX_BYTES);
	switch (read.status) {
		case 'ok':
			return read.bytes.toString('utf8');
		case 'missing':
			if (missingIsNone) return null;
			throw new UsageError(`cannot read ${what} ${file}: ENOENT: no such file or directory`);
		case 'refused':
			throw new UsageError(
				`cannot read ${what} ${file}: ${read.reason} (a config is read only from a regular file of at most ${CONFIG_MAX_BYTES} bytes)`,
			);
		case 'error':
			throw new UsageError(`cannot read ${what} ${file}: ${read.error}`);
	}
}

/**
 * The first line where the text's mappings and lists nest deeper than CONFIG_MAX_DEPTH, or null. Counted on the text
 * before it is parsed (the parser itself is what runs out of stack): each deeper indent opens a level, as does each
 * `- ` that starts a block item and each `[` or `{` outside quotes. It over-counts rather than under-counts (a `- `
 * inside a flow collection), which only matters past 64 levels no real config reaches. JSON is the flow case.
 */
function nestingTooDeep(text: string): number | null {
	const indents: number[] = [];
	let flow = 0;
	let lineNumber = 0;
	for (const line of text.split('\n')) {
		lineNumber++;
		const indent = line.length - line.trimStart().length;
		const body = line.slice(indent);
		if (flow === 0 && body !== '' && !body.startsWith('#')) {
			while (indents.length > 0 && indents.at(-1)! >= indent) indents.pop();
			indents.push(indent);
		}
		let dashes = 0;
		while (/^-(\s|$)/.test(body.slice(dashes * 2))) dashes++;
		let quote: string | null = null;
		let deepest = flow;
		for (let i = 0; i < body.length; i++) {
			const char = body[i]!;
			if (quote !== null) {
				if (char === '\\' && quote === '"') i++;
				else if (char === quote) quote = null;
			} else if (char === '"' || char === "'") quote = char;
			else if (char === '#' && (i === 0 || /\s/.test(body[i - 1]!))) break;
			else if (char === '[' || char === '{') deepest = Math.max(deepest, ++flow);
			else if (char === ']' || char === '}') flow = Math.max(0, flow - 1);
		}
		if (indents.length + dashes + deepest > CONFIG_MAX_DEPTH) return lineNumber;
	}
	return null;
}

/** Throws a UsageError naming the file and line when the text nests deeper than CONFIG_MAX_DEPTH. */
export function checkNesting(text: string, file: string, what: string): void {
	const line = nestingTooDeep(text);
	if (line !== null)
		throw new UsageError(
			`${what} ${file} line ${line}: nested deeper than ${CONFIG_MAX_DEPTH} levels (mappings and lists); a config this deep is not one traintop reads`,
		);
}

// The step a training log's last line names, for --progress-file: a log the user points at, written by code
// traintop does not know. Pure, over the tail of the file as read. Only the last COMPLETE line counts (one ended by
// \n, or by \r: tqdm redraws its bar in place, writing "\r" + the bar, tqdm/std.py fp_write), so a line half
// written is never read; its step is the one it names:
//   `step 1200`, `step=1200`, `step: 1200`, `Step [1200/5000]`-like forms (a word "step", then =, : or spaces,
//   then the number; a JSON or dict key's quote may close the word), `global_step 1200` (preferred when both are there), tqdm's `1200/5000 [` and `1200it [`.
// A line that names none still shows the file moved: its step is null.

export interface LogLine {
	/** Whether the text holds a complete line at all. */
	readonly complete: boolean;
	/** The step its last complete line names; null: none. */
	readonly step: number | null;
}

/**
 * The last line ended by \n or \r, skipping empty ones; the piece after the last ending is being written. Scans back
 * from the end, so a long tail costs only its last lines.
 */
function lastCompleteLine(text: string, textIsWhole: boolean): string | null {
	let end = lastEnding(text, text.length - 1);
	while (end >= 0) {
		const start = lastEnding(text, end - 1);
		// A tail that starts mid-file: its first piece may be the end of a line cut by the read.
		if (start < 0 && !textIsWhole) return null;
		const line = text.slice(start + 1, end);
		if (line.trim() !== '') return line;
		end = start;
	}
	return null;
}

/** The index of the last \n or \r at or before `from`; -1: none. */
function lastEnding(text: string, from: number): number {
	for (let at = from; at >= 0; at--) {
		const char = text.charCodeAt(at);
		if (char === 10 || char === 13) return at;
	}
	return -1;
}

const NUMBER = String.raw`(\d+)(?![\d.]*\d)`;
const PATTERNS = [
	new RegExp(String.raw`\bglobal[_ ]step\b["']?\s*[=:]?\s*\[?${NUMBER}`, 'i'),
	new RegExp(String.raw`\bstep\b["']?\s*[=:]?\s*\[?${NUMBER}`, 'i'),
	// tqdm's default bar_format: "{n_fmt}/{total_fmt} [{elapsed}<…" or, with no total, "{n_fmt}it [{elapsed}…".
	new RegExp(String.raw`${NUMBER}/\d+ \[`),
	new RegExp(String.raw`${NUMBER}it \[`),
];

/** The step a line names, by the first pattern that matches (the last match of it in the line); null: none. */
export function lineStep(line: string): number | null {
	for (const pattern of PATTERNS) {
		const global = new RegExp(pattern.source, `${pattern.flags}g`);
		const found = [...line.matchAll(global)].at(-1)?.[1];
		if (found !== undefined) return Number.parseInt(found, 10);
	}
	return null;
}

/** The last complete line's step (see above). */
export function logLineStep(text: string, textIsWhole: boolean): LogLine {
	const line = lastCompleteLine(text, textIsWhole);
	return line === null ? {complete: false, step: null} : {complete: true, step: lineStep(line)};
}

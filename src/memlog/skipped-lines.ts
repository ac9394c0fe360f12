// The lines `--analyze` skipped, in constant memory whatever the input: a log of 40 million bad lines once held an
// object per line until the heap ran out. Every line is counted, by reason; only the first few of each reason are
// kept as examples (with file and line), and only so many reasons are told apart.

import {printable} from '../format/printable.js';

export interface SkippedLine {
	readonly file: string;
	readonly line: number;
	readonly reason: string;
}

/** Where the reader puts what it skips: a SkippedLines, or a plain array for a short log (tests, the TUI's own log). */
export interface SkipSink {
	push(line: SkippedLine): unknown;
	/** A file that holds no memory record, left out while other files have some. Not called on an array. */
	leaveOut?(file: string, reason: string): void;
}

interface ReasonCount {
	readonly reason: string;
	count: number;
	examples: number;
}

/** The reason's kind: what comes before its first ": " (`not JSON`, `memory.percent`), array positions as `[]`. */
function reasonKind(reason: string): string {
	const colon = reason.indexOf(': ');
	const head = colon < 0 ? reason : reason.slice(0, colon);
	return head.replace(/\.\d+(?=\.|$)|\[\d+\]/g, '[]');
}

export class SkippedLines implements SkipSink {
	/** Examples kept of each reason, in the order met. */
	static readonly EXAMPLES_PER_REASON = 10;
	/** Reasons told apart; lines of any further reason are counted together as `other`. */
	static readonly MAX_REASONS = 32;

	#total = 0;
	readonly #reasons = new Map<string, ReasonCount>();
	readonly #other: ReasonCount = {reason: 'other', count: 0, examples: 0};
	readonly #examples: SkippedLine[] = [];
	/** The reason kind each example was counted under (`other` beyond MAX_REASONS). */
	readonly #exampleKinds: string[] = [];
	readonly #leftOut: {file: string; reason: string}[] = [];

	push(line: SkippedLine): void {
		this.#total++;
		const kind = reasonKind(line.reason);
		let r = this.#reasons.get(kind);
		if (r === undefined) {
			if (this.#reasons.size < SkippedLines.MAX_REASONS) {
				r = {reason: kind, count: 0, examples: 0};
				this.#reasons.set(kind, r);
			} else {
				r = this.#other;
			}
		}
		r.count++;
		if (r.examples < SkippedLines.EXAMPLES_PER_REASON) {
			r.examples++;
			this.#examples.push(line);
			this.#exampleKinds.push(r.reason);
		}
	}

	leaveOut(file: string, reason: string): void {
		this.#leftOut.push({file, reason});
	}

	/** Every line skipped. */
	get total(): number {
		return this.#total;
	}

	/** The first lines of each reason, in the order they were skipped. */
	get examples(): readonly SkippedLine[] {
		return this.#examples;
	}

	/** The examples counted under one reason kind (as `reasons` names it). */
	examplesOf(reason: string): SkippedLine[] {
		return this.#examples.filter((_, i) => this.#exampleKinds[i] === reason);
	}

	/** Lines per reason kind, in the order first met; `other` last when there were more kinds than told apart. */
	get reasons(): readonly {reason: string; count: number}[] {
		const all = [...this.#reasons.values()];
		if (this.#other.count > 0) all.push(this.#other);
		return all.map(({reason, count}) => ({reason, count}));
	}

	/** Files with no memory record, left out of a report that other files made. */
	get filesLeftOut(): readonly {file: string; reason: string}[] {
		return this.#leftOut;
	}
}

/**
 * stderr's account of the skipped lines: the first `shown` lines of each reason, then how many more of it, for at
 * most `reasons` reasons. Empty when nothing was skipped.
 */
export function describeSkipped(skipped: SkippedLines, shown = 3, reasons = 8): string {
	if (skipped.total === 0) return '';
	const out = [`traintop: skipped ${skipped.total} line(s) that are not memory records:`];
	const all = skipped.reasons;
	for (const {reason, count} of all.slice(0, reasons)) {
		const examples = skipped.examplesOf(reason);
		// A reason quotes the bad line's bytes (JSON.parse's message does), and a file's name is the file system's.
		for (const e of examples.slice(0, shown)) out.push(`  ${printable(e.file)}:${e.line}: ${printable(e.reason)}`);
		const more = count - Math.min(shown, examples.length);
		if (more > 0) out.push(`  … and ${more} more: ${printable(reason)}`);
	}
	const rest = all.slice(reasons);
	if (rest.length > 0) {
		const lines = rest.reduce((sum, r) => sum + r.count, 0);
		out.push(
			`  … and ${lines} more of ${rest.length} other reason(s): ${rest.map(r => printable(r.reason)).join(', ')}`,
		);
	}
	return `${out.join('\n')}\n`;
}

import {existsSync} from 'node:fs';
import type {OptionSpec} from '../config/option-spec.js';
import {flagName} from '../config/options.js';
import {UsageError} from '../core/errors.js';
import {allOptions, COMMAND_WORDS} from './commands.js';

// What the user most likely meant by a word the command line does not know: the closest known one by edit
// distance, when it is close enough to be a typo rather than another word (`--hsots` → `--hosts`, but `--x` is
// nobody's typo for `--yes`).

/**
 * Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two neighbours, one each (optimal string
 * alignment). Swapped letters are the commonest typo (`--yse`), and plain edit distance counts them as two.
 */
export function typoDistance(a: string, b: string): number {
	const d = Array.from({length: a.length + 1}, (_, i) =>
		Array.from({length: b.length + 1}, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
	);
	for (let i = 1; i <= a.length; i++) {
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
				best = Math.min(best, d[i - 2]![j - 2]! + 1);
			d[i]![j] = best;
		}
	}
	return d[a.length]![b.length]!;
}

/** The candidate nearest to `word` (case aside), or null when none is within a typo's reach of it. */
export function closest(word: string, candidates: readonly string[]): string | null {
	const typed = word.toLowerCase();
	// Half the word, 1 to 3 edits: two letters swapped in a five-letter word are a typo, a two-letter word is not.
	const reach = Math.min(3, Math.max(1, Math.floor(typed.length / 2)));
	let best: {candidate: string; edits: number} | null = null;
	for (const candidate of candidates) {
		const edits = typoDistance(typed, candidate.toLowerCase());
		if (edits <= reach && (best === null || edits < best.edits)) best = {candidate, edits};
	}
	return best?.candidate ?? null;
}

/** The flags as they are written (`--ram-threshold`, `--no-log`), to suggest one of. */
function writtenFlags(options: readonly OptionSpec[]): string[] {
	return options.flatMap(o => {
		const long = flagName(o.name);
		const usage = o.usage.split(/[ ,]/)[0]!;
		return usage.startsWith('--no-') ? [long, usage] : [long];
	});
}

/**
 * `--hsots` → `unknown option --hsots (did you mean --hosts?)`. A one-letter flag (`-x`) gets no suggestion: every
 * other one-letter flag is one edit away from it.
 */
export function unknownOptionError(written: string): UsageError {
	const name = written.replace(/^-+/, '');
	const nearest =
		written.startsWith('--') && name.length > 1
			? closest(
					name,
					writtenFlags(allOptions()).map(flag => flag.slice(2)),
				)
			: null;
	return new UsageError(`unknown option ${written}${nearest === null ? '' : ` (did you mean --${nearest}?)`}`);
}

/**
 * `traintop sginal save`: the monitor would take `sginal` for a RUN_DIR that does not exist yet and wait for it. A
 * word within a typo of a command, that is no path here and has no slash, is refused instead, naming the command;
 * `./sginal` still names a run dir to wait for.
 */
export function checkMistypedCommand(word: string | undefined): void {
	if (word === undefined || word.includes('/') || existsSync(word)) return;
	const nearest = closest(word, COMMAND_WORDS);
	if (nearest !== null)
		throw new UsageError(
			`${word} is not a command (did you mean traintop ${nearest}?); a RUN_DIR that does not exist yet: ./${word}`,
		);
}

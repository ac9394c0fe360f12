import {UsageError} from '../core/errors.js';
import type {RankSelector} from '../ranks/tree.js';

/** --pid / --match → how ranks are found; neither = the user's processes carrying rank variables. */
export function selectorFromFlags(flags: Readonly<Record<string, unknown>>): RankSelector {
	const pid = flags.pid;
	const match = flags.match;
	if (pid !== undefined && match !== undefined) throw new UsageError('--pid and --match cannot be used together');
	if (pid !== undefined) {
		const text = String(pid).trim();
		if (!/^\d+$/.test(text) || Number(text) < 2) {
			throw new UsageError(`--pid needs a process id greater than 1 (got '${String(pid)}')`);
		}
		return {kind: 'pid', pid: Number(text)};
	}
	if (match !== undefined) {
		if (String(match) === '') throw new UsageError('--match needs a regular expression');
		try {
			return {kind: 'match', pattern: new RegExp(String(match))};
		} catch (error) {
			throw new UsageError(`--match '${String(match)}' is not a valid regular expression: ${(error as Error).message}`);
		}
	}
	return {kind: 'env'};
}

/** `--rank 0,2,5` → [0, 2, 5]; undefined when absent (every rank). */
export function ranksFromFlag(value: unknown): number[] | undefined {
	if (value === undefined) return undefined;
	const parts = String(value)
		.split(',')
		.map(part => part.trim());
	if (parts.some(part => !/^\d+$/.test(part))) {
		throw new UsageError(`--rank needs rank numbers separated by commas, e.g. --rank 0,2 (got '${String(value)}')`);
	}
	return [...new Set(parts.map(Number))];
}

export function describeSelector(selector: RankSelector): string {
	switch (selector.kind) {
		case 'env':
			return 'among your processes carrying RANK, LOCAL_RANK or SLURM_PROCID';
		case 'pid':
			return `among process ${selector.pid} and its descendants`;
		case 'match':
			return `among processes whose command line matches /${selector.pattern.source}/`;
	}
}

/** `--job ID` (a job id, its launcher pid, a SLURM job or step); null when absent. */
export function jobFromFlag(value: unknown): string | null {
	if (value === undefined) return null;
	const text = String(value).trim();
	if (text === '')
		throw new UsageError('--job needs a job id (as `traintop ranks` lists them), a launcher pid or a SLURM job id');
	return text;
}

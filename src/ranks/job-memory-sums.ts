import type {JobMemory, ProcessMemory, RankMemory} from '../core/memory-types.js';

// The sums of a job's memory and the test of "nothing changed" that lets the reader hand back the same array (the
// agent then sends it as a slow part, only when it changed).

/** The sum, or null when any term is unknown: a partial sum would undercount without saying so. */
export function sumOrNull(values: readonly (number | null)[]): number | null {
	let sum = 0;
	for (const value of values) {
		if (value === null) return null;
		sum += value;
	}
	return sum;
}

const sameProcess = (a: ProcessMemory, b: ProcessMemory): boolean =>
	a.pid === b.pid && a.rssBytes === b.rssBytes && a.pssBytes === b.pssBytes;

const sameRank = (a: RankMemory, b: RankMemory): boolean =>
	a.rank === b.rank &&
	a.gpuBytes === b.gpuBytes &&
	sameProcess(a.self, b.self) &&
	a.workers.length === b.workers.length &&
	a.workers.every((w, i) => sameProcess(w, b.workers[i]!));

/** Every figure the reader makes equal (trends are not its own: they are left as it made them, empty). */
export function sameJobMemory(a: readonly JobMemory[], b: readonly JobMemory[]): boolean {
	return (
		a.length === b.length &&
		a.every((job, i) => {
			const other = b[i]!;
			return (
				job.job === other.job &&
				job.pssAt === other.pssAt &&
				job.ranks.length === other.ranks.length &&
				job.ranks.every((rank, j) => sameRank(rank, other.ranks[j]!))
			);
		})
	);
}

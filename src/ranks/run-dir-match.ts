import path from 'node:path';

// Which job a RUN_DIR names. A job's ranks name it by their command line (`--output_dir runs/x`, resolved
// against the rank's cwd), by files they hold open under it, or by working in it; only when no job does
// any of these does a job whose cwd is a parent of it count (a job started in the project root that writes
// to runs/x by a path in its config). More than one job at the strongest level found: none is chosen.

export type RunDirEvidence = 'command line' | 'open file' | 'working directory' | 'parent working directory';

/** Strongest first; a job is ranked by its strongest piece of evidence. */
const ORDER: readonly RunDirEvidence[] = ['command line', 'open file', 'working directory', 'parent working directory'];

export interface RankPlaces {
	readonly argv: readonly string[];
	readonly cwd: string | null;
	/** null when not read (read only when command line and cwd settle nothing). */
	readonly openFiles: readonly string[] | null;
}

function within(dir: string, candidate: string): boolean {
	const relative = path.relative(dir, candidate);
	return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The paths an argv names: each word, and the value of each `--flag=value`, resolved against the cwd. */
function argvPaths(argv: readonly string[], cwd: string | null): string[] {
	const words = argv.slice(1).flatMap(word => {
		const eq = word.startsWith('-') ? word.indexOf('=') : -1;
		return eq > 0 ? [word.slice(eq + 1)] : word.startsWith('-') ? [] : [word];
	});
	return (
		words
			// Only words that look like paths: "0.2" or "train.py" resolved against the cwd would name the cwd itself.
			.filter(word => word.includes('/') || word === '.' || word === '..')
			.map(word => (path.isAbsolute(word) ? path.normalize(word) : cwd === null ? word : path.resolve(cwd, word)))
	);
}

/** The strongest evidence that this rank's job uses `runDir` (absolute), or null. */
export function evidenceOf(rank: RankPlaces, runDir: string): RunDirEvidence | null {
	if (argvPaths(rank.argv, rank.cwd).some(p => p === runDir || within(runDir, p))) return 'command line';
	if (rank.openFiles?.some(file => path.isAbsolute(file) && within(runDir, file))) return 'open file';
	if (rank.cwd !== null && within(runDir, rank.cwd)) return 'working directory';
	if (rank.cwd !== null && within(rank.cwd, runDir)) return 'parent working directory';
	return null;
}

/** The strongest evidence any of a job's ranks gives. */
export function jobEvidence(ranks: readonly RankPlaces[], runDir: string): RunDirEvidence | null {
	let best: RunDirEvidence | null = null;
	for (const rank of ranks) {
		const evidence = evidenceOf(rank, runDir);
		if (evidence !== null && (best === null || ORDER.indexOf(evidence) < ORDER.indexOf(best))) best = evidence;
	}
	return best;
}

/** The job ids with the strongest evidence found; one id = the run dir's job, several = ambiguous, none = no job. */
export function jobsNaming(evidence: ReadonlyMap<string, RunDirEvidence | null>): {
	readonly ids: readonly string[];
	readonly evidence: RunDirEvidence | null;
} {
	for (const level of ORDER) {
		const ids = [...evidence].filter(([, e]) => e === level).map(([id]) => id);
		if (ids.length > 0) return {ids, evidence: level};
	}
	return {ids: [], evidence: null};
}

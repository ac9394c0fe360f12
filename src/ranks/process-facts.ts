// What is read of one process, apart from the tree built of them (tree.ts): the job grouping (jobs.ts) and the
// membership proofs (job-proof.ts) read it too, and the tree imports both.

/** The facts discovery needs about one process. `env` is null when it could not be read. */
export interface ProcessFacts {
	readonly pid: number;
	readonly ppid: number;
	readonly uid: number;
	readonly startTime: number;
	readonly argv: readonly string[];
	/** /proc/PID/comm; absent where not read (tests, other users' processes). */
	readonly comm?: string;
	/** /proc/PID/stat's session id; absent where not read (tests). Part of what proves hand-started ranks one job. */
	readonly session?: number;
	readonly env: ReadonlyMap<string, string> | null;
}

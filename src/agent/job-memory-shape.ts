// Each job's memory on the wire (a slow part), as the views read it without looking: job, its ranks (each with its
// own figures and its workers), the trends. The numbers themselves were checked by wire-values.ts.

type Fields = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Fields =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

const isProcess = (value: unknown): boolean => isObject(value) && Number.isInteger(value.pid);

/** The first field out of shape, `at snapshot.jobMemory[0].ranks[1].workers: …`; null when absent or in shape. */
export function jobMemoryError(jobMemory: unknown): string | null {
	if (jobMemory === undefined) return null;
	if (!Array.isArray(jobMemory)) return 'at snapshot.jobMemory: an array';
	for (const [i, job] of jobMemory.entries()) {
		const at = `at snapshot.jobMemory[${i}]`;
		if (!isObject(job) || typeof job.job !== 'string' || job.job.length === 0) return `${at}.job: a non-empty string`;
		if (!Array.isArray(job.trends) || !job.trends.every(isProcess)) return `${at}.trends: an array of processes`;
		if (!Array.isArray(job.ranks)) return `${at}.ranks: an array`;
		for (const [j, rank] of job.ranks.entries()) {
			if (!isProcess(rank) || !isProcess((rank as Fields).self))
				return `${at}.ranks[${j}]: a rank with its pid and self`;
			const workers = (rank as Fields).workers;
			if (!Array.isArray(workers) || !workers.every(isProcess))
				return `${at}.ranks[${j}].workers: an array of processes`;
		}
	}
	return null;
}

import type {SlurmJob} from './types.js';

// What one job listing (squeue --json or scontrol show job) says about a job: everything but the steps and the
// warning signal, which other commands give.

export type SlurmJobRecord = Omit<SlurmJob, 'warning' | 'warningUnknown' | 'steps'>;

/**
 * The record for `jobId` among a listing: its own id, or `ARRAY_TASK` ('42_1'). squeue --json in 22.05 lists
 * every job whatever `-j` says, and scontrol lists each task of an array, so the caller picks.
 */
export function pickJob(records: readonly SlurmJobRecord[], jobId: string): SlurmJobRecord | null {
	const own = records.find(record => record.jobId === jobId);
	if (own) return own;
	const task = /^(\d+)_(\d+)$/.exec(jobId);
	if (!task) return null;
	return records.find(record => record.arrayJobId === task[1] && record.arrayTaskId === task[2]) ?? null;
}

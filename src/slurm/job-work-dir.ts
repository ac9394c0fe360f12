import {UsageError} from '../core/errors.js';
import {readSlurmJobOnce} from './read-job.js';

// `traintop checkpoints --slurm-job J` without a RUN_DIR: the run's checkpoints are where the job works, its
// WorkDir (sbatch --chdir, else where sbatch ran), as the controller says.

/** The job's working directory; a usage error (exit 2) that says why when the controller cannot give it. */
export async function jobWorkDir(jobId: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
	const view = await readSlurmJobOnce(jobId, env);
	if (view.status === 'ok' && view.job.workDir !== null) return view.job.workDir;
	let why: string;
	if (view.status === 'ok') why = 'SLURM gives no working directory for it';
	else if (view.status === 'not-found') why = 'the controller knows no such job';
	else why = view.reason;
	throw new UsageError(`--slurm-job ${jobId}: ${why}; give RUN_DIR`);
}

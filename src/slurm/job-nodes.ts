import {UsageError} from '../core/errors.js';
import {readSlurmJobOnce} from './read-job.js';
import {firstLine, runSlurm} from './slurm-exec.js';

// The nodes a SLURM job runs on, one name each, as slurmd names them (SLURMD_NODENAME on the node): the job's
// NodeList (`gpu[01-04,07]`) expanded by `scontrol show hostnames`, SLURM's own reading of its host-list syntax.

/** The running job's nodes; a usage error (exit 2) when it is not running or the controller does not answer. */
export async function slurmJobNodes(jobId: string, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
	const view = await readSlurmJobOnce(jobId, env);
	if (view.status === 'not-found') throw new UsageError(`--slurm-job ${jobId}: the controller knows no such job`);
	if (view.status === 'unavailable') throw new UsageError(`--slurm-job ${jobId}: ${view.reason}`);
	const {job} = view;
	if (job.state !== 'RUNNING' || job.nodes === '')
		throw new UsageError(`--slurm-job ${jobId} is ${job.state}: its nodes are known once it runs`);
	const result = await runSlurm('scontrol', ['show', 'hostnames', job.nodes], {env, timeoutMs: 10_000});
	if (result.code !== 0)
		throw new UsageError(
			`scontrol show hostnames ${job.nodes}: ${result.failure ?? (firstLine(result.stderr) || `exit ${result.code}`)}`,
		);
	const nodes = result.stdout
		.split('\n')
		.map(line => line.trim())
		.filter(line => line !== '');
	if (nodes.length === 0) throw new UsageError(`scontrol show hostnames ${job.nodes} named no node`);
	return nodes;
}

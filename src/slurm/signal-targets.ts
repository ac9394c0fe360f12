import {isStepForwarder} from '../ranks/programs.js';
import type {ForwarderTarget} from '../ranks/send.js';
import type {ProcReader} from '../system/procfs.js';
import type {StepFacts} from './signal-facts.js';

// A step's srun on this node, at the pid the controller gives (SrunHost:Pid), checked in /proc to be an srun of
// the job and ours: the one SLURM process a route may address directly.

const SELF_UID = process.getuid?.() ?? -1;

/** The host name as SLURM writes it in SrunHost and BatchHost (the short name: gethostname up to the first dot). */
function shortHost(name: string): string {
	return name.split('.')[0] ?? name;
}

/** The step's srun when it runs here, is ours, and is an srun of the job; else null. */
export function localForwarder(
	step: StepFacts,
	jobId: string,
	host: string,
	proc: ProcReader,
	uid = SELF_UID,
): ForwarderTarget | null {
	if (!step.srun || shortHost(step.srun.host) !== shortHost(host)) return null;
	const {pid} = step.srun;
	const stat = proc.stat(pid);
	const status = proc.status(pid);
	if (!stat || !status || status.uid.real !== uid) return null;
	if (!isStepForwarder({argv: proc.cmdline(pid) ?? [], comm: stat.comm})) return null;
	const env = proc.environ(pid);
	if ((env?.get('SLURM_JOB_ID') ?? env?.get('SLURM_JOBID')) !== jobId) return null;
	return {pid, startTime: stat.startTime, program: 'srun', jobId, label: `step ${step.id}`};
}

import type {FleetConnection} from '../fleet/fleet.js';
import type {AgentArgs} from '../fleet/transports.js';

/**
 * Every node of a SLURM job through one step: `srun --jobid J --overlap` (shares the job's resources instead of
 * waiting for free ones), one task per node, stdin broadcast to every task (srun's default `--input=all`), so each
 * agent takes the commands addressed to its own host. Each agent names itself after its node (SLURMD_NODENAME).
 */
export function srunConnection(jobId: string, nodes: readonly string[], agent: AgentArgs): FleetConnection {
	return {
		nodes,
		argv: [
			'srun',
			`--jobid=${jobId}`,
			'--overlap',
			`--nodes=${nodes.length}`,
			'--ntasks-per-node=1',
			`--ntasks=${nodes.length}`,
			'--kill-on-bad-exit=0',
			'--quiet',
			'traintop',
			'agent',
			...agent.args,
		],
	};
}

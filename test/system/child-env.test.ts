import {describe, expect, it} from 'vitest';
import {AgentStream} from '../../src/fleet/agent-stream.js';
import {runSlurm} from '../../src/slurm/slurm-exec.js';
import {spawnInOwnGroup} from '../../src/system/process-group.js';
// The registry adds each scheduler's rank variables (SLURM's among them) when it loads, as every command line does.
import '../../src/scheduler/registry.js';
import {until} from '../helpers/until.js';

// A traintop inside a job (an agent under `srun --overlap`) carries SLURM_PROCID; no child it starts may inherit the
// rank variables, or its squeue, nvidia-smi wrapper or ssh would be found as a rank of the job (seen: an agent's
// squeue listed as rank 0 of the agent's own step). Real children print what they were given.

const RANKED = {...process.env, RANK: '3', LOCAL_RANK: '1', SLURM_PROCID: '3', SLURM_LOCALID: '1', KEPT: 'yes'};
const PRINT =
	'echo "RANK=$RANK LOCAL_RANK=$LOCAL_RANK SLURM_PROCID=$SLURM_PROCID SLURM_LOCALID=$SLURM_LOCALID KEPT=$KEPT"';
const CLEAN = 'RANK= LOCAL_RANK= SLURM_PROCID= SLURM_LOCALID= KEPT=yes';

describe('children traintop starts carry no rank variables', () => {
	it('a SLURM client (squeue, scontrol, srun)', async () => {
		const run = await runSlurm('sh', ['-c', PRINT], {env: RANKED, timeoutMs: 5000});
		expect(run.stdout.trim()).toBe(CLEAN);
	});

	it('a helper in its own group (nvidia-smi)', async () => {
		const child = spawnInOwnGroup('sh', ['-c', PRINT], RANKED);
		let out = '';
		child.stdout?.on('data', chunk => {
			out += chunk;
		});
		await new Promise(resolve => child.once('close', resolve));
		expect(out.trim()).toBe(CLEAN);
	});

	it("an agent's connection (ssh, srun, a local agent)", async () => {
		const garbage: string[] = [];
		await new Promise<void>(resolve => {
			new AgentStream(
				['sh', '-c', PRINT],
				{onMessage: () => {}, onGarbage: line => garbage.push(line), onEnd: () => resolve()},
				RANKED,
			);
		});
		// Not an agent message: reported as garbage, with the child's own words (the line may follow the exit).
		await until(
			() => garbage.length,
			count => count > 0,
			'the child line',
		);
		expect(garbage).toEqual([CLEAN]);
	});
});

import {describe, expect, test} from 'vitest';
import {jobFromWire, jobToWire, rankFromWire, rankToWire} from '../../src/agent/wire-tasks.js';
import type {Job} from '../../src/core/types.js';
import {job} from '../core/job-data.js';

// A rank's and a job's SLURM task on the agent protocol stay as they were before the scheduler seam: the `slurm`
// object (jobId, stepId, restartCount, procId), the identity `slurm` and the proof `slurm-step`; both ways.

const task = {scheduler: 'slurm', jobId: '998', stepId: '0', restartCount: 1, taskId: 0};
const SENT = {jobId: '998', stepId: '0', restartCount: 1, procId: 0};

const slurmJob = (): Job => {
	const base = job('slurm:998.0', 2, n => ({task: {...task, taskId: n}}));
	return {...base, identity: 'scheduler', provenBy: 'scheduler-step', task};
};

describe('a SLURM task on the wire', () => {
	test('sent as before the seam: `slurm` on each rank and the job, its identity and proof codes', () => {
		const wire = jobToWire(slurmJob());
		expect(wire).toMatchObject({identity: 'slurm', provenBy: 'slurm-step', slurm: SENT});
		expect(wire).not.toHaveProperty('task');
		expect(wire.ranks.map(r => r.slurm)).toEqual([SENT, {...SENT, procId: 1}]);
	});

	test('read back whole, and a rank without a task is `slurm: null`, as an older reader expects', () => {
		const sent = slurmJob();
		expect(jobFromWire(JSON.parse(JSON.stringify(jobToWire(sent))))).toEqual(sent);
		const lone = job('pid:7', 1).ranks[0]!;
		expect(rankToWire(lone)).toMatchObject({slurm: null});
		expect(rankFromWire(JSON.parse(JSON.stringify(rankToWire(lone))))).toEqual(lone);
	});

	test("an older agent's job (no field added since) reads as a SLURM step", () => {
		const {task: _task, ranks, ...rest} = slurmJob();
		const older = {
			...rest,
			identity: 'slurm',
			provenBy: 'slurm-step',
			slurm: SENT,
			ranks: ranks.map(({task: _t, ...rank}) => ({...rank, slurm: SENT})),
		};
		expect(jobFromWire(older)).toMatchObject({identity: 'scheduler', provenBy: 'scheduler-step', task});
		expect(jobFromWire(older).ranks.map(r => r.task)).toEqual([task, task]);
	});
});

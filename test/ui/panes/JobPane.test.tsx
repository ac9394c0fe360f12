import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import JobPane, {jobPaneNeed} from '../../../src/ui/panes/JobPane.js';
import {deadlineRisk} from '../../../src/core/deadline-risk.js';
import {slurmState} from '../../../src/slurm/scheduler-state.js';
import {slurmOk} from '../../helpers/slurm-job.js';
import {expectFits, frameLines, NOW} from '../fixtures.js';

afterEach(cleanup);

const view = slurmOk(NOW - 57_000, {
	name: 'llm-pretrain',
	startTime: NOW - 3000,
	submitTime: NOW - 10_000,
	endTime: NOW + 597_000,
	elapsedS: 3,
	timeLeftS: 597,
	warning: {signal: 'USR1', leadS: 120, batchOnly: true, from: 'batch script'},
	steps: [{id: '16.0', name: 'bash', state: 'RUNNING', tasks: 2, nodes: 'vm', srun: null}],
});

/** As the Monitor judges it (Snapshot.deadlineRisk): no run dir, so no save seen. */
const risk = deadlineRisk(slurmState(view).job, null);

describe("the job pane, with SLURM's lines", () => {
	test('the job, its time and warning, the work at risk, the steps; cut from the end when short', () => {
		const whole = expectFits(
			render(<JobPane state={slurmState(view)} risk={risk} width={120} height={4} />).lastFrame(),
			120,
			4,
		);
		expect(whole[0]).toBe(
			'SLURM job 16 llm-pretrain · RUNNING · root · debug · nodes vm · 2 tasks · restart 0, requeueable',
		);
		expect(whole[1]).toBe(
			'time 3 s of 10 m 00 s · 9 m 57 s left · warning SIGUSR1 to the batch shell 2 m 00 s before the end (batch script)',
		);
		expect(whole[2]).toMatch(/^time limit in 10 min; no save seen yet/);
		expect(whole[3]).toBe('steps 16.0 bash (2 tasks, RUNNING)');
		const short = frameLines(
			render(<JobPane state={slurmState(view)} risk={risk} width={80} height={1} compact />).lastFrame(),
		);
		expect(short).toEqual([expect.stringMatching(/^SLURM job 16 llm-pretrain · RUNNING · nodes vm/)]);
	});

	test('outside SLURM the pane takes no rows; with a job it wants every line and needs the title', () => {
		expect(jobPaneNeed(null, null, false)).toEqual({min: 0, want: 0});
		expect(jobPaneNeed(slurmState(view), risk, false)).toEqual({min: 1, want: 4});
		expect(render(<JobPane state={null} risk={null} width={80} height={4} />).lastFrame()).toBe('');
	});
});

import {describe, expect, it} from 'vitest';
import type {SlurmJob} from '../../../src/slurm/types.js';
import {deadlineRisk} from '../../../src/core/deadline-risk.js';
import {slurmLines} from '../../../src/slurm/views/job-lines.js';
import {schedulerJobOf} from '../../../src/slurm/scheduler-state.js';
import {checkpointIndex, NOW} from '../../helpers/checkpoint-data.js';
import {slurmJob} from '../../helpers/slurm-job.js';

// The SLURM job in words: what the job pane and the headless lines say for each state of the controller's answer.

function job(fields: Partial<SlurmJob> = {}): SlurmJob {
	return slurmJob(NOW, {
		jobId: '42',
		name: 'llm-pretrain',
		user: 'alice',
		partition: 'gpu',
		nodes: 'node[01-04]',
		batchHost: 'node01',
		submitTime: NOW - 3_700_000,
		startTime: NOW - 3_600_000,
		endTime: NOW + 2_520_000,
		elapsedS: 3600,
		timeLimitS: 6120,
		timeLeftS: 2520,
		restarts: 1,
		tasks: 8,
		warning: {signal: 'USR1', leadS: 120, batchOnly: false, from: 'batch script'},
		steps: [
			{id: '42.batch', name: 'batch', state: 'RUNNING', tasks: 1, nodes: 'node01', srun: null},
			{id: '42.0', name: 'python', state: 'RUNNING', tasks: 8, nodes: 'node[01-04]', srun: null},
		],
		...fields,
	});
}

/** The deadline as the Monitor judges it against the fixture's saves (Snapshot.deadlineRisk). */
const riskOf = (one: SlurmJob) => deadlineRisk(schedulerJobOf(one), checkpointIndex());

const texts = (lines: readonly {text: string}[]) => lines.map(line => line.text);

describe('slurmLines', () => {
	it('a running job: who and where, time left and the warning, the work at risk, the steps', () => {
		// The seed fixture's saves: every 15 min (median), the last 30 min ago.
		const lines = slurmLines({status: 'ok', job: job(), readAt: NOW}, riskOf(job()), false);
		expect(texts(lines)).toEqual([
			'SLURM job 42 llm-pretrain · RUNNING · alice · gpu · nodes node[01-04] · 8 tasks · restart 1, requeueable',
			'time 1 h 00 m of 1 h 42 m · 42 m 00 s left · warning SIGUSR1 2 m 00 s before the end (batch script)',
			expect.stringMatching(/^time limit in 42 min; /),
			'steps 42.batch · 42.0 python (8 tasks, RUNNING)',
		]);
		expect(lines[2]?.level).toMatch(/^(ok|warn)$/);
	});

	it("the work-at-risk line weighs the warning's lead against how long the last save took to write", () => {
		// The fixture's saves took 40 s each (their files' first birth to last write): inside the 2 min lead.
		const within = slurmLines({status: 'ok', job: job(), readAt: NOW}, riskOf(job()), false)[2];
		expect(within?.text).toMatch(/the SIGUSR1 warning comes 2 m 00 s before the end; the last save took 40 s$/);
		// A 30 s lead is less than that save: the ranks would be killed mid-save.
		const short = job({warning: {signal: 'USR1', leadS: 30, batchOnly: false, from: 'batch script'}});
		const risk = slurmLines({status: 'ok', job: short, readAt: NOW}, riskOf(short), false)[2];
		expect(risk?.text).toMatch(/the SIGUSR1 warning comes 30 s before the end, less than the last save took \(40 s\)$/);
		expect(risk?.level).toBe('warn');
	});

	it('the narrow form leaves out user and partition; an array task names its array; B: is the batch shell', () => {
		const task = job({
			arrayJobId: '40',
			arrayTaskId: '2',
			warning: {signal: 'TERM', leadS: 60, batchOnly: true, from: 'batch script'},
		});
		const lines = texts(slurmLines({status: 'ok', job: task, readAt: NOW}, null, true));
		expect(lines[0]).toBe(
			'SLURM job 42 (array 40) llm-pretrain · RUNNING · nodes node[01-04] · 8 tasks · restart 1, requeueable',
		);
		expect(lines[1]).toContain('warning SIGTERM to the batch shell 1 m 00 s before the end (batch script)');
	});

	it('no time limit, a warning that cannot be known, a pending job: no work-at-risk line', () => {
		const open = job({
			timeLimitS: null,
			timeLeftS: null,
			warning: null,
			warningUnknown: 'given on the sbatch command line?',
		});
		const lines = texts(slurmLines({status: 'ok', job: open, readAt: NOW}, null, false));
		expect(lines[1]).toBe('time 1 h 00 m · no time limit · warning signal: given on the sbatch command line?');
		expect(lines).toHaveLength(3);
		const pending = job({state: 'PENDING', reason: 'BeginTime', elapsedS: 0, steps: []});
		const pendingLines = texts(slurmLines({status: 'ok', job: pending, readAt: NOW}, null, false));
		expect(pendingLines[0]).toContain('· PENDING (BeginTime) ·');
		expect(pendingLines.at(-1)).toBe('steps none yet');
	});

	it('a controller that does not answer: why, then the last answer dimmed; not found; not asked yet', () => {
		const down = slurmLines(
			{status: 'unavailable', reason: 'slurmctld at vm:6817 not answering: timed out', readAt: NOW, last: job()},
			null,
			false,
		);
		expect(down[0]).toMatchObject({
			level: 'warn',
			text: expect.stringMatching(/^SLURM: slurmctld at vm:6817 not answering: timed out \(tried \d\d:\d\d:\d\d\)$/),
		});
		expect(down.slice(1).every(line => line.stale === true)).toBe(true);
		expect(down[1]?.text).toMatch(/^SLURM job 42 llm-pretrain/);
		expect(slurmLines({status: 'not-found', jobId: '77', readAt: NOW}, null, false)).toEqual([
			{
				text: 'SLURM job 77 not found: it ended longer ago than the controller keeps jobs, or the id is wrong',
				level: 'warn',
			},
		]);
		expect(
			texts(slurmLines({status: 'unavailable', reason: 'not read yet', readAt: NOW, last: null}, null, false)),
		).toEqual(['SLURM: asking the controller about the job…']);
		expect(slurmLines(null, null, false)).toEqual([]);
	});
});

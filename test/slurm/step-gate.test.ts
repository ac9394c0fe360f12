import {describe, expect, it} from 'vitest';
import {gateRefusal} from '../../src/slurm/views/gate-words.js';
import {signalNumber} from '../../src/ranks/signals.js';
import {parseListPids} from '../../src/slurm/signal-facts.js';
import {gateBlocks, stepViews} from '../../src/slurm/step-gate.js';
import type {ProcReader, ProcStatus} from '../../src/system/procfs.js';

// The srun/scancel gate on the facts it reads: listpids' tasks of job 7 (step 0 here, step 1 on another node), their
// /proc status as recorded values (the real-process side is test/slurm/signal-gates.test.ts and signal-routes).

const LISTPIDS = ['PID JOBID STEPID LOCALID GLOBALID', '501 7 0 0 0', '502 7 0 1 1', ''].join('\n');
const facts = {
	jobId: '7',
	state: 'RUNNING',
	batchHost: 'vm',
	steps: [
		{id: '7.0', state: 'RUNNING', srun: null, tasks: 2},
		{id: '7.1', state: 'RUNNING', srun: null, tasks: 4},
	],
};
const mask = (...signals: Parameters<typeof signalNumber>[0][]) =>
	signals.reduce((m, s) => m | (1n << BigInt(signalNumber(s) - 1)), 0n);

/** Two tasks of job 7: pid 501 handles USR1 and ignores USR2; pid 502 handles USR1 and is stopped when asked. */
function proc(stopped: boolean): ProcReader {
	const status: ProcStatus = {
		name: 'python3',
		uid: {real: 0, effective: 0},
		sigPnd: 0n,
		shdPnd: 0n,
		sigBlk: 0n,
		sigIgn: mask('SIGUSR2'),
		sigCgt: mask('SIGUSR1'),
		vmRssBytes: 1,
	};
	return {
		listPids: () => [501, 502],
		owner: () => 0,
		stat: pid => ({state: pid === 502 && stopped ? 'T' : 'S', comm: 'python3', startTime: 1}) as never,
		status: () => status,
		environ: () => new Map([['SLURM_JOB_ID', '7']]),
		cmdline: () => ['python3', 'train.py'],
		cwd: () => null,
		openFiles: () => null,
	};
}

const here = parseListPids(LISTPIDS);
const ranks = [{id: 'slurm:7.0', ranks: [{pid: 501, rank: 0}]}] as never;

describe('the srun/scancel gate', () => {
	it('a step with no task here blocks a signal that terminates by default; a harmless one passes', () => {
		const views = stepViews(facts, here, ranks, 'SIGUSR1', proc(false));
		expect(views.map(v => [v.step.id, v.read.length, v.notRanks])).toEqual([
			['7.0', 2, null],
			['7.1', 0, null],
		]);
		expect(gateBlocks(views, 'SIGUSR1')).toEqual([{kind: 'unread', step: facts.steps[1], effect: 'terminates'}]);
		expect(gateBlocks(stepViews(facts, here, ranks, 'SIGCONT', proc(false)), 'SIGCONT')).toEqual([]);
	});

	it('a task that ignores the signal, or is stopped, blocks it, and the refusal says why', () => {
		const ignored = gateBlocks(stepViews(facts, here, ranks, 'SIGUSR2', proc(false)).slice(0, 1), 'SIGUSR2');
		expect(ignored.map(b => b.kind === 'task' && [b.task.pid, b.effect])).toEqual([
			[501, 'ignored'],
			[502, 'ignored'],
		]);
		const stopped = gateBlocks(stepViews(facts, here, ranks, 'SIGUSR1', proc(true)).slice(0, 1), 'SIGUSR1');
		expect(gateRefusal(stopped, 'SIGUSR1')).toBe(
			'task 1 (pid 502, step 7.0) is stopped: SIGUSR1 would stay pending and act only once it is continued (SIGCONT) (--force sends it anyway)',
		);
	});

	it('a step seen here none of whose tasks is a rank of the job is left out', () => {
		const views = stepViews(facts, here, [] as never, 'SIGUSR1', proc(false));
		expect(views[0]?.notRanks).toEqual(['pid 501 python3 train.py', 'pid 502 python3 train.py']);
	});
});

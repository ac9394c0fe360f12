import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ProgressJudge} from '../../src/core/progress.js';
import {NO_GPU_PROCESSES} from '../../src/core/types.js';
import {WaitReader} from '../../src/ranks/rank-waits.js';
import {procReader} from '../../src/system/procfs.js';
import {job, rankSet, T0} from '../core/job-data.js';

// Where the ranks wait, read from a recording of a real hang: test/fixtures/proc/ddp-gloo-blocked holds the /proc
// files of the two ranks of test/fixtures/jobs/ddp_plain.py (torch 1.13, gloo, torchrun, Linux 6.18) with rank 1
// (27868) stopped by SIGSTOP and rank 0 (27867) blocked in the all_reduce of its backward pass.

const proc = procReader(path.join(import.meta.dirname, '../fixtures/proc/ddp-gloo-blocked'));
const recorded = (scanAt: number, cpuPercent: number | null) =>
	rankSet(
		[
			job('torchrun:27860', 2, n => ({
				pid: 27_867 + n,
				startTime: 4_887_947,
				state: n === 1 ? 'T' : 'S',
				stopped: n === 1,
				cpuPercent,
			})),
		],
		{at: scanAt},
	);

describe('the wait reader on a recorded hang', () => {
	it('reads each idle rank’s wait channel: futex_do_wait for the one in all_reduce, do_signal_stop for the stopped one', () => {
		const waits = new WaitReader(proc).read(recorded(T0, 0));
		expect(waits.get(27_867)).toEqual({wchan: 'futex_do_wait', workers: []});
		expect(waits.get(27_868)).toEqual({wchan: 'do_signal_stop', workers: []});
	});

	it('reads nothing of a rank that computes (running, with a share of a core)', () => {
		const set = recorded(T0, 90);
		const running = {...set, ranks: set.ranks.map(r => ({...r, state: 'R', stopped: false}))};
		expect(new WaitReader(proc).read(running).size).toBe(0);
	});

	it('makes the judge call the job hung, the stopped rank the odd one and rank 0 waiting in futex_do_wait', () => {
		const reader = new WaitReader(proc);
		const judge = new ProgressJudge({hangAfterS: 300});
		const judged = [T0, T0 + 500].map((at, i) => {
			const set = recorded(at, i === 0 ? null : 0);
			return judge.judge({
				ranks: set,
				waits: reader.read(set),
				steps: [],
				gpu: {status: 'absent', reason: 'none'},
				gpuProcesses: NO_GPU_PROCESSES,
				ras: null,
				now: at,
			})[0];
		});
		expect(judged[1]).toMatchObject({
			verdict: 'hung',
			odd: [{rank: 1, pid: 27_868, activity: 'stopped'}],
			waiting: [{ranks: [0], activity: 'waiting', wchan: 'futex_do_wait'}],
		});
	});
});

import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {hangJobFor, isStuck, progressEvents, watchJob} from '../helpers/progress-events.js';
import {until} from '../helpers/until.js';

// A healthy real DDP job (test/fixtures/jobs/ddp_hang.py under real torchrun, gloo on CPU) that pauses 30 s every
// 80 steps, every rank asleep at once, as in a slow evaluation: with --hang-after 60 it is never called stalled or
// hung. Rank 0's step log is named with --progress-file, as a user names their training log.

describe('a healthy job with slow evaluations', () => {
	it.concurrent('30 s pauses between steps with --hang-after 60: never stalled or hung', async context => {
		const stepsLog = (runDir: string) => path.join(runDir, 'steps.log');
		const {job, runDir} = hangJobFor(context, dir => ({
			nproc: 2,
			pauseEvery: 80,
			pauseSeconds: 30,
			stepsLog: stepsLog(dir),
		}));
		await job.ranks();
		const run = watchJob(context, job, runDir, 60, ['--progress-file', stepsLog(runDir)]);
		// The third pause begins: two whole pauses of 30 s lie behind.
		await until(
			() => job.pauses().filter(p => p.rank === 0),
			pauses => pauses.length >= 3,
			'a third pause',
			200_000,
			200,
		);
		const events = progressEvents(run.stdout());
		expect(events.filter(isStuck)).toEqual([]);
		expect(events.some(e => e.verdict === 'progressing')).toBe(true);
		console.log(`paused job: ${events.map(e => e.verdict).join(', ')}`);
	}, 240_000);
});

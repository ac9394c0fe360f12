import {randomUUID} from 'node:crypto';
import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {hostname, tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, test} from 'vitest';
import {jobFromWire, jobToWire} from '../../src/agent/wire-tasks.js';
import {ranksJson} from '../../src/commands/ranks-format.js';
import {jobLine} from '../../src/format/jobs.js';
import {jobMatches} from '../../src/ranks/choose-job.js';
import {RankSampler} from '../../src/ranks/discover.js';
import {endsWholeJob} from '../../src/ranks/whole-job.js';
import {registerScheduler} from '../../src/scheduler/registry.js';
import {procReader, type ProcReader} from '../../src/system/procfs.js';
import {type PythonChild, startPython} from '../helpers/python-child.js';
import {fakeScheduler} from './fake/scheduler.js';

// A scheduler's tasks through the same hooks as SLURM's (scheduler/task.ts), with no generic code touched: a real
// python3 started with the fake scheduler's variables is a rank with the fake's task and job id once its step is
// proven — here by its cgroup, the one fact a test cannot give a real process without root, so the reader is /proc's
// own but for that file — and is no task of it without the proof.

let dir: string;
let unregister: () => void;
const children: PythonChild[] = [];

beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-fake-tasks-'));
	const file = path.join(dir, 'job.json');
	await writeFile(file, JSON.stringify({id: 'none', state: 'RUNNING', restarts: 0, tasks: []}));
	unregister = registerScheduler(fakeScheduler(file));
});

afterAll(async () => {
	unregister();
	await rm(dir, {recursive: true, force: true});
});

afterEach(() => {
	for (const child of children.splice(0)) child.kill();
});

/** /proc as it is, but the fake step's cgroup for `pid` (what the fake's node daemon would have made it). */
function withStepCgroup(pid: number, cgroup: string): ProcReader {
	const proc = procReader();
	return {...proc, cgroup: one => (one === pid ? cgroup : (proc.cgroup?.(one) ?? null))};
}

async function fakeTask(jobId: string): Promise<PythonChild> {
	const env = {FAKE_JOB_ID: jobId, FAKE_STEP: '0', FAKE_TASK: '3', FAKE_TASKS: '4', FAKE_RESTARTS: '1'};
	const child = await startPython('on(signal.SIGUSR1, "USR1")', env, `tt-${jobId}`);
	children.push(child);
	return child;
}

/** One scan of the fake job's tasks only: traintop inside that job (its scope, as in an allocation). */
function scan(jobId: string, proc: ProcReader) {
	return new RankSampler({
		proc,
		selector: {kind: 'env'},
		host: hostname(),
		scheduledJob: {kind: 'fake', jobId},
	}).sample();
}

describe('a scheduler that is not SLURM gives a rank its task', () => {
	test('a real process in the fake step: its task, its cross-node job id, its words, JSON and wire', async () => {
		const jobId = `F${randomUUID().slice(0, 8)}`;
		const child = await fakeTask(jobId);
		const set = await scan(jobId, withStepCgroup(child.pid, `0::/fake.slice/job-${jobId}/step-0/task\n`));

		expect(set.ranks.map(r => [r.pid, r.rank, r.worldSize])).toEqual([[child.pid, 3, 4]]);
		const task = {scheduler: 'fake', jobId, stepId: '0', restartCount: 1, taskId: 3};
		expect(set.ranks[0]?.task).toEqual(task);
		const job = set.jobs[0]!;
		expect(job).toMatchObject({id: `fake:${jobId}.0`, identity: 'scheduler', provenBy: 'scheduler-step', task});
		// --job takes the scheduler's own ids; the job's line names it in the scheduler's words.
		expect([jobId, `${jobId}.0`, `fake:${jobId}.0`, '3'].map(wanted => jobMatches(job, wanted))).toEqual([
			true,
			true,
			true,
			false,
		]);
		expect(jobLine(job)).toContain(`FAKE ${jobId}.0`);
		// One of its four tasks ending may end the step: its launcher's rule, named by the scheduler.
		expect(endsWholeJob(job, job.ranks, 'SIGUSR1', {emergency: true, force: false})).toMatchObject({
			launcher: 'fake-run',
			certain: false,
		});
		// `ranks --json`: the scheduler's codes; it has no key of its own there.
		const json = ranksJson(set);
		expect(json.jobs[0]).toMatchObject({identity: 'fake', proven_by: 'fake-step', slurm: null});
		expect(json.jobs[0]).not.toHaveProperty('fake');
		// The agent protocol: no key of its own from before, so its task travels as it is, and comes back.
		const wire = JSON.parse(JSON.stringify(jobToWire(job)));
		expect(wire).toMatchObject({identity: 'fake', provenBy: 'fake-step', task, slurm: null});
		expect(jobFromWire(wire)).toEqual(job);
	});

	test('its variables without the step proven: no task, no fake job', async () => {
		const jobId = `F${randomUUID().slice(0, 8)}`;
		const child = await fakeTask(jobId);
		const set = await scan(jobId, withStepCgroup(child.pid, `0::/user.slice/job-${jobId}/step-0\n`));
		expect(set.ranks.map(r => [r.pid, r.task])).toEqual([[child.pid, null]]);
		expect(set.jobs[0]?.id).not.toMatch(/^fake:/);
	});
});

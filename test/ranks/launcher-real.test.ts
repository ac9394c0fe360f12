import {mkdtemp, rm} from 'node:fs/promises';
import {hostname, tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, test} from 'vitest';
import type {Job, RankSet} from '../../src/core/types.js';
import {RankSampler} from '../../src/ranks/discover.js';
import {launcherFacts} from '../../src/ranks/launcher-traps.js';
import {procReader} from '../../src/system/procfs.js';
import {type DdpJob, startDdpJob} from '../helpers/ddp-job.js';

// A real torchrun (Debian's torch 1.13: `python3 -m torch.distributed.run`, 2 ranks of ddp_plain.py on CPU) found by
// the real discovery: its job's launcher is the elastic agent, named torchrun from its command line in /proc, and its
// own dispositions read from /proc/PID/status are those torch's code sets: PContext.start() installs a handler for
// SIGTERM (and SIGINT, SIGHUP, SIGQUIT); nothing installs one for SIGUSR1.

let job: DdpJob | null = null;
let dir: string | null = null;
afterEach(async () => {
	await job?.stop();
	job = null;
	if (dir) await rm(dir, {recursive: true, force: true});
	dir = null;
});

/** The real discovery under torchrun's agent, sampled until its launcher shows a handler for SIGTERM (torch installs it as it starts the ranks). */
async function agentJob(launcherPid: number): Promise<Job> {
	const sampler = new RankSampler({
		proc: procReader(),
		selector: {kind: 'pid', pid: launcherPid},
		host: hostname(),
		rescanEveryMs: 0,
	});
	const deadline = Date.now() + 120_000;
	let last: RankSet | null = null;
	for (;;) {
		last = await sampler.sample();
		const found = last.jobs.find(j => j.launcher?.pid === launcherPid);
		if (found && found.ranks.length === 2 && found.launcher?.signals?.SIGTERM?.disposition === 'handled') return found;
		if (Date.now() > deadline)
			throw new Error(`torchrun's job with its handler: not after 120 s; last: ${JSON.stringify(last.jobs)}`);
		await new Promise(resolve => setTimeout(resolve, 250));
	}
}

test('real torchrun: launcherFacts names torchrun with the agent pid and its own SIGTERM handler read from /proc', async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-launcher-'));
	job = startDdpJob(dir, {saveEvery: 50, stepSeconds: 0.05});
	await job.ranks();
	const found = await agentJob(job.launcherPid);
	expect(found.identity).toBe('elastic');
	expect(found.launcher?.cmd).toContain('-m torch.distributed.run');

	const facts = launcherFacts(found);
	expect(facts).toMatchObject({
		name: 'torchrun',
		pid: job.launcherPid,
		forwards: ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'],
		killAfterS: 30,
		exitCode: 1,
	});
	expect(facts?.signals?.SIGTERM).toBe('handled');
	expect(facts?.signals?.SIGHUP).toBe('handled');
	expect(facts?.signals?.SIGQUIT).toBe('handled');
	expect(facts?.signals?.SIGUSR1).toBe('default');
	expect(facts?.source).toContain('torch/distributed/elastic/multiprocessing/api.py');
}, 180_000);

test('real torchrun with TORCH_ELASTIC_SHUTDOWN_TIMEOUT=120: torch 1.13 does not read it (its code, as the agent maps it), so 30 s', async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-launcher-'));
	const before = process.env.TORCH_ELASTIC_SHUTDOWN_TIMEOUT;
	process.env.TORCH_ELASTIC_SHUTDOWN_TIMEOUT = '120';
	try {
		job = startDdpJob(dir, {saveEvery: 50, stepSeconds: 0.05});
	} finally {
		if (before === undefined) delete process.env.TORCH_ELASTIC_SHUTDOWN_TIMEOUT;
		else process.env.TORCH_ELASTIC_SHUTDOWN_TIMEOUT = before;
	}
	await job.ranks();
	const found = await agentJob(job.launcherPid);
	expect(found.launcher?.variables).toEqual({TORCH_ELASTIC_SHUTDOWN_TIMEOUT: '120'});
	expect(found.launcher?.reads).toEqual([]);
	const facts = launcherFacts(found);
	expect(facts?.killAfterS).toBe(30);
	expect(facts?.source).toContain('this torch does not read TORCH_ELASTIC_SHUTDOWN_TIMEOUT');
}, 180_000);

import {spawn, type ChildProcess} from 'node:child_process';
import {hostname} from 'node:os';
import {createInterface} from 'node:readline';
import {afterEach, expect, test} from 'vitest';
import type {RankSet} from '../../src/core/types.js';
import {rankEvents} from '../../src/core/job-events.js';
import {RankSampler} from '../../src/ranks/discover.js';
import {procReader} from '../../src/system/procfs.js';
import {until} from '../helpers/until.js';

// The job's life on real processes: a launcher that starts two ranks and never reaps them (so a dead rank stays a
// zombie and its exit status can be read), stopped with SIGSTOP, killed with SIGKILL, then the launcher gone.

const LAUNCHER = `
import os, subprocess, sys, time
env = dict(os.environ, WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT="29651")
rank = 'import signal, time\\nprint("up", flush=True)\\nwhile True: time.sleep(0.05)'
kids = [subprocess.Popen([sys.executable, "-c", rank, "tt-life-rank"], env=dict(env, RANK=str(r))) for r in (0, 1)]
print("ready", " ".join(str(k.pid) for k in kids), flush=True)
while True: time.sleep(3600)  # never waits: a rank that dies stays a zombie
`;

const started: ChildProcess[] = [];
afterEach(() => {
	for (const child of started.splice(0)) {
		try {
			process.kill(-child.pid!, 'SIGKILL');
		} catch {
			// gone
		}
	}
});

async function launch(): Promise<{launcher: ChildProcess; ranks: number[]}> {
	const launcher = spawn('python3', ['-c', LAUNCHER], {stdio: ['ignore', 'pipe', 'inherit'], detached: true});
	started.push(launcher);
	const ranks = await new Promise<number[]>(resolve => {
		createInterface({input: launcher.stdout!}).on('line', line => {
			if (line.startsWith('ready ')) resolve(line.split(' ').slice(1).map(Number));
		});
	});
	return {launcher, ranks};
}

const state = (pid: number) => procReader().stat(pid)?.state;

test('stopped at the next sample, all stopped is one job-stalled event, a SIGKILLed rank shows how it died, then the job ends', async () => {
	const {launcher, ranks} = await launch();
	const [r0, r1] = ranks as [number, number];
	const sampler = new RankSampler({
		proc: procReader(),
		selector: {kind: 'pid', pid: launcher.pid!},
		host: hostname(),
		rescanEveryMs: 0,
	});
	// Popen returns once each rank has exec'd, so a sample finds both; on a loaded machine the first one once saw one
	// (the other's /proc not yet showing its new environment): sampled again until both are there.
	let set: RankSet = await sampler.sample();
	for (let tries = 1; set.ranks.length < 2 && tries < 100; tries++) {
		await new Promise(resolve => setTimeout(resolve, 50));
		set = await sampler.sample();
	}
	expect(set.jobs.map(j => [j.id, j.identity, j.ranks.map(r => r.pid).sort()])).toEqual([
		['rdzv:127.0.0.1:29651', 'rendezvous', [r0, r1].sort()],
	]);
	expect(set.jobs[0]?.launcher?.pid).toBe(launcher.pid);

	// One rank stopped: flagged by the first sample after the kernel shows state T, with a rank-stopped event.
	process.kill(r1, 'SIGSTOP');
	await until(
		() => state(r1),
		s => s === 'T',
		'rank 1 stopped',
	);
	let previous = set;
	set = await sampler.sample();
	expect(set.ranks.find(r => r.pid === r1)).toMatchObject({stopped: true, state: 'T'});
	expect(rankEvents(previous, set, 1).map(e => [e.kind, e.pid])).toEqual([['rank-stopped', r1]]);

	// The other one too: the whole job is quiet, which is one event, not one per rank.
	process.kill(r0, 'SIGSTOP');
	await until(
		() => state(r0),
		s => s === 'T',
		'rank 0 stopped',
	);
	previous = set;
	set = await sampler.sample();
	expect(rankEvents(previous, set, 2).map(e => e.kind)).toEqual(['job-stalled']);

	// Running again, then rank 1 killed: its zombie says SIGKILL.
	process.kill(r0, 'SIGCONT');
	process.kill(r1, 'SIGCONT');
	await until(
		() => [state(r0), state(r1)],
		s => !s.includes('T'),
		'both running again',
	);
	set = await sampler.sample();
	process.kill(r1, 'SIGKILL');
	await until(
		() => state(r1),
		s => s === 'Z',
		'rank 1 a zombie',
	);
	previous = set;
	set = await sampler.sample();
	expect(set.ranks.map(r => r.pid)).toEqual([r0]);
	expect(set.departed).toEqual([
		{role: 'rank', job: 'rdzv:127.0.0.1:29651', rank: 1, pid: r1, exit: {code: null, signal: 'SIGKILL'}},
	]);
	const exited = rankEvents(previous, set, 3).find(e => e.kind === 'rank-exited');
	expect(exited).toMatchObject({pid: r1, level: 'critical', exit: {code: null, signal: 'SIGKILL'}});
	expect(exited?.text).toContain('SIGKILL');

	// The launcher and the last rank gone: the job ended, said once.
	process.kill(-launcher.pid!, 'SIGKILL');
	await until(
		() => state(r0),
		s => s === undefined || s === 'Z',
		'rank 0 gone',
	);
	await until(
		() => state(launcher.pid!),
		s => s === undefined || s === 'Z',
		'launcher gone',
	);
	previous = set;
	set = await sampler.sample();
	expect(set.jobs).toEqual([]);
	expect(set.ended.map(j => j.id)).toEqual(['rdzv:127.0.0.1:29651']);
	expect(rankEvents(previous, set, 4).map(e => e.kind)).toContain('job-ended');
});

import {execFileSync} from 'node:child_process';
import {accessSync, constants, readFileSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import type {DemoJob} from '../../src/demo/job.js';
import {type DdpJob, startDdpJob} from '../helpers/ddp-job.js';
import {requireBuild} from '../helpers/dist.js';
import {runCli} from '../helpers/run-cli.js';
import {startSmallJob} from '../helpers/small-demo-job.js';
import {until} from '../helpers/until.js';

// `traintop stacks` on a real PyTorch DDP job (test/fixtures/jobs/ddp_plain.py: 2 ranks, gloo on CPU, under real
// torchrun), the built CLI: with py-spy (0.4.x from PyPI, installed here into a temporary directory) each rank's
// Python frames; without it, the kernel's view; with a second job running (the demo job, whose ranks have DataLoader
// workers), nothing read until one is picked, then that job's ranks and workers only.

interface StacksJson {
	schema_version: number;
	job: string;
	method: 'py-spy' | 'kernel';
	py_spy: {path: string; version: string | null} | null;
	processes: {
		role: 'rank' | 'worker';
		rank: number | null;
		pid: number;
		of?: number;
		method: string;
		gone: boolean;
		state: string | null;
		wchan: string | null;
		threads: {
			tid: number;
			name: string;
			state: string;
			wchan: string | null;
			cpu_seconds: number;
			frames?: {name: string; file: string; line: number}[];
		}[];
		kernel_stack: string[] | null;
		py_spy_ms: number | null;
		problem?: string;
	}[];
}

let dir = '';
let job: DdpJob | null = null;
let ranks: number[] = [];
/** py-spy's directory (DIR/bin/py-spy), or why it could not be installed. */
let pySpy: {bin: string} | {why: string} = {why: 'not installed yet'};
const demos: DemoJob[] = [];

/** pip install --target DIR py-spy with the first python3 that can: Debian's, or the one on PATH. */
function installPySpy(into: string): {bin: string} | {why: string} {
	const tried: string[] = [];
	// vitest.config.ts points XDG_CONFIG_HOME nowhere (no traintop config of the user's applies); pip's own config (its
	// index, a proxy) lives there too, and pip is to install as the user's pip would.
	const env = {...process.env};
	if (env.XDG_CONFIG_HOME?.startsWith('/nonexistent')) delete env.XDG_CONFIG_HOME;
	for (const python of ['/usr/bin/python3', 'python3']) {
		try {
			execFileSync(python, ['-m', 'pip', 'install', '--quiet', '--target', into, 'py-spy'], {
				stdio: ['ignore', 'ignore', 'pipe'],
				timeout: 180_000,
				env,
			});
			const bin = path.join(into, 'bin');
			accessSync(path.join(bin, 'py-spy'), constants.X_OK);
			return {bin};
		} catch (error) {
			const stderr = String((error as {stderr?: Buffer}).stderr ?? '')
				.trim()
				.split('\n')
				.at(-1);
			tried.push(`${python}: ${stderr || (error as Error).message}`);
		}
	}
	return {why: `py-spy could not be installed (pip install --target DIR py-spy): ${tried.join('; ')}`};
}

/** PATH without any directory that holds a py-spy: the kernel's view is what is tested then. */
const pathWithout = (extra: string | null): string =>
	[
		...(extra ? [extra] : []),
		...(process.env.PATH ?? '').split(path.delimiter).filter(d => {
			try {
				accessSync(path.join(d, 'py-spy'), constants.X_OK);
				return false;
			} catch {
				return true;
			}
		}),
	].join(path.delimiter);

const NO_GPU = ['--nvidia-smi', '/nonexistent/nvidia-smi'];

beforeAll(async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-stacks-ddp-'));
	job = startDdpJob(path.join(dir, 'run'), {saveEvery: 100_000, stepSeconds: 0.2});
	pySpy = installPySpy(path.join(dir, 'py-spy'));
	ranks = await job.ranks();
}, 300_000);

afterAll(async () => {
	await Promise.all([job?.stop(), ...demos.map(demo => demo.stop())]);
	if (dir) await rm(dir, {recursive: true, force: true});
}, 60_000);

const stacks = (args: readonly string[], pySpyDir: string | null) =>
	runCli(['stacks', ...args, ...NO_GPU], {env: {PATH: pathWithout(pySpyDir)}, timeoutMs: 60_000});

describe('traintop stacks on a real DDP job', () => {
	test("with py-spy on PATH: each rank's Python frames, main of ddp_plain.py among them", async ({skip}) => {
		if ('why' in pySpy) skip(pySpy.why);
		const bin = 'bin' in pySpy ? pySpy.bin : null;
		const run = await stacks(['--pid', String(job!.launcherPid), '--json'], bin);
		expect(run.code, run.stderr).toBe(0);
		const body = JSON.parse(run.stdout) as StacksJson;
		expect(body.schema_version).toBe(1);
		expect(body.method).toBe('py-spy');
		expect(body.py_spy?.version).toMatch(/^py-spy \d/);
		// Only the job's ranks: the same pids torchrun's ranks said they have.
		expect(body.processes.map(p => p.pid).sort()).toEqual([...ranks].sort());
		for (const p of body.processes) {
			expect(p, JSON.stringify(p)).toMatchObject({role: 'rank', method: 'py-spy', gone: false});
			const frames = p.threads.flatMap(t => t.frames ?? []);
			expect(
				frames.some(f => f.name === 'main' && f.file.endsWith('ddp_plain.py') && f.line > 0),
				JSON.stringify(p),
			).toBe(true);
			expect(p.py_spy_ms).toBeGreaterThanOrEqual(0);
		}
		// The words: each rank's main frame as py-spy writes it, once per rank.
		const text = await stacks(['--pid', String(job!.launcherPid)], bin);
		expect(text.code, text.stderr).toBe(0);
		expect(text.stdout).toMatch(/^Python frames by py-spy \d/);
		expect(text.stdout.match(/^ {6}main \(ddp_plain\.py:\d+\)$/gm)).toHaveLength(2);
		for (const pid of ranks) expect(text.stdout).toMatch(new RegExp(`^rank [01]  pid ${pid}  [RS] `, 'm'));
	}, 120_000);

	test("without py-spy: the kernel's view of both ranks, and how to get py-spy", async () => {
		const run = await stacks(['--pid', String(job!.launcherPid), '--json'], null);
		expect(run.code, run.stderr).toBe(0);
		const body = JSON.parse(run.stdout) as StacksJson;
		expect(body).toMatchObject({method: 'kernel', py_spy: null});
		expect(body.processes.map(p => p.pid).sort()).toEqual([...ranks].sort());
		for (const p of body.processes) {
			expect(p).toMatchObject({role: 'rank', method: 'kernel', gone: false});
			expect(p.state).toMatch(/^[RSD]$/);
			// torch starts threads of its own: every one listed, the main thread first, each with its state and CPU.
			expect(p.threads.length).toBeGreaterThan(1);
			expect(p.threads[0]?.tid).toBe(p.pid);
			for (const t of p.threads) {
				expect(t.state).toMatch(/^[RSD]$/);
				expect(t.cpu_seconds).toBeGreaterThanOrEqual(0);
				expect(t.frames).toBeUndefined();
			}
			// Some thread sleeps in the kernel (the gloo threads wait on futexes), named by its wait channel.
			expect(p.threads.some(t => t.wchan !== null && /^\w/.test(t.wchan))).toBe(true);
			if (process.geteuid?.() === 0) expect(p.kernel_stack).not.toBeNull();
			else expect(p.problem).toMatch(/root only/);
		}
		const text = await stacks(['--pid', String(job!.launcherPid)], null);
		expect(text.stdout.split('\n')[0]).toMatch(/^py-spy is not on PATH: the kernel's view only\. .*pip install py-spy/);
		expect(text.stdout).toMatch(/^ {2}thread \d+ \(\S+\) {2}[RSD] (in \w|running)/m);
		expect(text.stdout).not.toMatch(/ddp_plain\.py/);
	}, 120_000);

	test('a second job: nothing read until one is picked, then only its ranks and their DataLoader workers', async ({
		skip,
	}) => {
		const demo = await startSmallJob(path.join(dir, 'demo'), 29_000 + Math.floor(Math.random() * 900), 1);
		demos.push(demo);
		const refused = await stacks([], null);
		expect(refused.code).toBe(2);
		expect(refused.stdout).toBe('');
		expect(refused.stderr).toMatch(/stacks: \d+ jobs found and nothing picks one; nothing read\. Jobs found:/);
		expect(refused.stderr).toContain(`:${job!.launcherPid}  2 ranks`);
		expect(refused.stderr).toContain(`launcher.py:${demo.launcherPid}  2 ranks`);

		const workers = [...demo.workerPids().values()].flat();
		expect(workers.length).toBeGreaterThan(0);
		const bin = 'bin' in pySpy ? pySpy.bin : null;
		const picked = await stacks(['--job', `launcher.py:${demo.launcherPid}`, '--json'], bin);
		expect(picked.code, picked.stderr).toBe(0);
		const body = JSON.parse(picked.stdout) as StacksJson;
		const demoRanks = [...(await demo.ranksReady()).values()];
		expect(
			body.processes
				.filter(p => p.role === 'rank')
				.map(p => p.pid)
				.sort(),
		).toEqual(demoRanks.sort());
		expect(
			body.processes
				.filter(p => p.role === 'worker')
				.map(p => p.pid)
				.sort(),
		).toEqual(workers.sort());
		for (const worker of body.processes.filter(p => p.role === 'worker')) {
			expect(demoRanks).toContain(worker.of);
			expect(worker.threads.length).toBeGreaterThan(0);
		}
		// Not one process of the DDP job.
		for (const pid of ranks) expect(body.processes.map(p => p.pid)).not.toContain(pid);
		if (bin === null) skip(`the workers' Python frames: ${'why' in pySpy ? pySpy.why : ''}`);
		for (const p of body.processes)
			expect(
				p.threads.some(t => (t.frames?.length ?? 0) > 0),
				JSON.stringify(p),
			).toBe(true);
	}, 120_000);

	test('no job found: nothing read, exit 3, and an empty list with --json', async () => {
		const run = await stacks(['--match', 'traintop-stacks-no-such-job-[0-9]{9}', '--json'], null);
		expect(run.code).toBe(3);
		expect(JSON.parse(run.stdout)).toEqual({schema_version: 1, job: null, method: null, py_spy: null, processes: []});
		expect(run.stderr).toMatch(/no ranks found .*; nothing read/);
	});

	// Last: it stops a rank of the shared job (and lets it go again).
	test('a stopped rank is read where it stopped and stays stopped; its peer waits in a futex', async () => {
		const [waiting, stopped] = ranks as [number, number];
		process.kill(stopped, 'SIGSTOP');
		try {
			await until(
				() => readFileSync(`/proc/${stopped}/stat`, 'utf8'),
				text => / T /.test(text),
				'the rank stopped',
			);
			// Its peer ends up in the step's all_reduce, waiting for it.
			await until(
				() => readFileSync(`/proc/${waiting}/wchan`, 'utf8'),
				text => /futex/.test(text),
				'its peer waiting',
				30_000,
			);
			const bin = 'bin' in pySpy ? pySpy.bin : null;
			const run = await stacks(['--pid', String(job!.launcherPid), '--json'], bin);
			expect(run.code, run.stderr).toBe(0);
			const body = JSON.parse(run.stdout) as StacksJson;
			const of = (pid: number) => body.processes.find(p => p.pid === pid)!;
			expect(of(stopped).state).toBe('T');
			expect(of(stopped).threads.every(t => t.state === 'T')).toBe(true);
			expect(of(waiting).wchan).toMatch(/futex/);
			if (bin !== null) {
				expect(
					of(stopped)
						.threads.flatMap(t => t.frames ?? [])
						.some(f => f.name === 'main'),
				).toBe(true);
				expect(
					of(waiting)
						.threads.flatMap(t => t.frames ?? [])
						.some(f => f.name === 'main'),
				).toBe(true);
			}
			// Read, not woken: still stopped, no signal pending.
			expect(readFileSync(`/proc/${stopped}/stat`, 'utf8')).toMatch(/\) T /);
			expect(readFileSync(`/proc/${stopped}/status`, 'utf8')).toMatch(/^SigPnd:\s+0+$/m);
		} finally {
			process.kill(stopped, 'SIGCONT');
		}
	}, 120_000);
});

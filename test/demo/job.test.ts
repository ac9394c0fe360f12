// The demo training job on real processes: a torchrun-shaped launcher, Python ranks in their own sessions with
// pt_data_worker children, signal handlers visible in /proc, checkpoints in the seed layout.

import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {demoLauncherArgs, type DemoJobOptions} from '../../src/demo/job-options.js';
import {DEMO_JOB_DIR, startDemoJob, type DemoJob} from '../../src/demo/job.js';
import {findPython, requirePython} from '../../src/demo/python.js';
import {until} from '../helpers/until.js';
import {
	childrenOf,
	isRunning,
	maskHas,
	readCmdline,
	readCwd,
	readEnviron,
	readStat,
	see,
	vmRssKiB,
	type Seen,
} from './proc.js';

const SIGHUP = 1;
const SIGINT = 2;
const SIGQUIT = 3;
const SIGUSR1 = 10;
const SIGTERM = 15;
const FINAL = /^checkpoint_step_(\d+)_(\d{8}_\d{6})$/;
const TMP = /^checkpoint_step_(\d+)_(\d{8}_\d{6})\.tmp$/;

const tempDirs: string[] = [];
const jobs: DemoJob[] = [];

function runDir(): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'traintop-demo-job-'));
	tempDirs.push(dir);
	return path.join(dir, 'run');
}

async function start(options: Omit<DemoJobOptions, 'runDir'>): Promise<DemoJob> {
	const job = await startDemoJob({runDir: runDir(), shutdownTimeoutS: 3, ...options});
	jobs.push(job);
	return job;
}

async function stopJobs(): Promise<void> {
	await Promise.all(jobs.splice(0).map(job => job.stop()));
}

afterEach(stopJobs);
afterAll(async () => {
	await stopJobs();
	for (const dir of tempDirs.splice(0)) rmSync(dir, {recursive: true, force: true});
});

/** Launcher, ranks and workers of a ready job, each with its start time. */
function everyProcess(job: DemoJob, ranks: Map<number, number>): Seen[] {
	const pids = [job.launcherPid, ...ranks.values(), ...[...job.workerPids().values()].flat()];
	return pids.map(see);
}

interface Metadata {
	checkpoints: {step: number; epoch: number; timestamp: string; checkpoint_path: string; kind: string}[];
	latest_checkpoint: {step: number; checkpoint_path: string; kind: string};
	max_checkpoints: number;
}

function readMetadata(job: DemoJob): Metadata {
	return JSON.parse(readFileSync(path.join(job.checkpointDir, 'checkpoint_metadata.json'), 'utf8')) as Metadata;
}

function entries(job: DemoJob, pattern: RegExp): string[] {
	if (!existsSync(job.checkpointDir)) return [];
	return readdirSync(job.checkpointDir)
		.filter(name => pattern.test(name))
		.sort();
}

describe('demo job: a torchrun-shaped process tree', () => {
	let job: DemoJob;
	let ranks: Map<number, number>;

	beforeAll(async () => {
		// RANK & co. inherited by the launcher must not show in its /proc environ (it re-execs without them).
		job = await startDemoJob({
			runDir: runDir(),
			ranks: 4,
			workers: 2,
			stepSeconds: 0.1,
			saveEvery: 0,
			noUsr1Ranks: [3],
			shutdownTimeoutS: 3,
			env: {RANK: '7', LOCAL_RANK: '7', SLURM_PROCID: '7', SLURM_LOCALID: '7'},
		});
		ranks = await job.ranksReady();
	});
	// Not in `jobs`: the top-level afterEach would stop it after the first test of this block.
	afterAll(() => job?.stop());

	it('starts 4 ranks with torchrun worker env, each leading its own session, the launcher without RANK', () => {
		expect([...ranks.keys()].sort()).toEqual([0, 1, 2, 3]);
		const launcherEnv = readEnviron(job.launcherPid);
		for (const name of ['RANK', 'LOCAL_RANK', 'SLURM_PROCID', 'SLURM_LOCALID'])
			expect(launcherEnv.has(name)).toBe(false);
		expect(readCmdline(job.launcherPid).some(arg => arg.endsWith('launcher.py'))).toBe(true);

		for (const [rank, pid] of ranks) {
			const env = readEnviron(pid);
			expect(env.get('RANK')).toBe(String(rank));
			expect(env.get('LOCAL_RANK')).toBe(String(rank));
			expect(env.get('WORLD_SIZE')).toBe('4');
			expect(env.get('LOCAL_WORLD_SIZE')).toBe('4');
			expect(env.get('GROUP_RANK')).toBe('0');
			expect(env.get('ROLE_RANK')).toBe(String(rank));
			expect(env.get('MASTER_ADDR')).toBe('127.0.0.1');
			expect(env.get('TORCHELASTIC_RUN_ID')).toBe(`traintop-demo-${job.launcherPid}`);
			expect(env.get('TORCHELASTIC_RESTART_COUNT')).toBe('0');
			expect(env.has('SLURM_PROCID')).toBe(false);

			const stat = readStat(pid);
			expect(stat?.ppid).toBe(job.launcherPid);
			expect(stat?.session).toBe(pid); // session leader
			expect(stat?.pgrp).toBe(pid); // and process-group leader
			expect(readCmdline(pid).some(arg => arg.endsWith('rank.py'))).toBe(true);
			expect(readCwd(pid)).toBe(job.runDir);
		}
	});

	it("gives every rank 2 pt_data_worker children in its group, with the rank's RANK", () => {
		for (const [rank, pid] of ranks) {
			const children = childrenOf(pid);
			expect(children).toEqual([...(job.workerPids().get(rank) ?? [])].sort((a, b) => a - b));
			expect(children).toHaveLength(2);
			for (const child of children) {
				const stat = readStat(child);
				expect(stat?.comm).toBe('pt_data_worker');
				expect(stat?.pgrp).toBe(pid);
				expect(readEnviron(child).get('RANK')).toBe(String(rank));
			}
		}
	});

	it('shows the handlers in SigCgt: USR1 caught except on a --no-usr1 rank; TERM and INT on all; launcher like torchrun', () => {
		for (const [rank, pid] of ranks) {
			expect(maskHas(pid, 'SigCgt', SIGUSR1), `rank ${rank} SIGUSR1`).toBe(rank !== 3);
			expect(maskHas(pid, 'SigCgt', SIGTERM), `rank ${rank} SIGTERM`).toBe(true);
			expect(maskHas(pid, 'SigCgt', SIGINT), `rank ${rank} SIGINT`).toBe(true);
		}
		for (const signal of [SIGHUP, SIGINT, SIGQUIT, SIGTERM])
			expect(maskHas(job.launcherPid, 'SigCgt', signal)).toBe(true);
		expect(maskHas(job.launcherPid, 'SigCgt', SIGUSR1)).toBe(false);
		expect(maskHas(job.launcherPid, 'SigIgn', SIGUSR1)).toBe(false);
	});
});

describe('demo job: checkpoints', () => {
	it('writes periodic checkpoints in the seed layout from rank 0 only, keeps at most M, leaves no .tmp', async () => {
		const job = await start({
			ranks: 2,
			workers: 0,
			stepSeconds: 0.02,
			saveEvery: 3,
			maxSteps: 16,
			maxCheckpoints: 2,
			checkpointBytes: 65536,
		});
		expect(await job.exited).toBe(0); // all ranks reached max steps and exited 0
		const saved = job.output().match(/^rank 0 step \d+ saved checkpoint_step_\d+_\d{8}_\d{6} \(periodic\)$/gm) ?? [];
		expect(saved).toHaveLength(5); // steps 3, 6, 9, 12, 15
		expect(job.output()).toMatch(/^rank 1 saved \(shard\) at step 15 \(periodic\)$/m);

		const finals = entries(job, FINAL);
		expect(finals.map(name => Number(FINAL.exec(name)?.[1]))).toEqual([12, 15]); // retention: the newest 2
		expect(entries(job, /\.tmp$/)).toEqual([]);
		expect(readdirSync(job.checkpointDir).sort()).toEqual([...finals, 'checkpoint_metadata.json'].sort());

		const metadata = readMetadata(job);
		expect(metadata.max_checkpoints).toBe(2);
		expect(metadata.checkpoints.map(c => c.checkpoint_path)).toEqual(finals.map(name => `./checkpoints/${name}`));
		expect(metadata.checkpoints.map(c => c.kind)).toEqual(['periodic', 'periodic']);
		expect(metadata.checkpoints.map(c => c.step)).toEqual([12, 15]);
		expect(metadata.checkpoints[1]?.epoch).toBeCloseTo(0.15);
		expect(metadata.checkpoints[1]?.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
		expect(metadata.latest_checkpoint).toEqual(metadata.checkpoints[1]);

		for (const name of finals) {
			const dir = path.join(job.checkpointDir, name);
			expect(readdirSync(dir).sort()).toEqual(['meta.json', 'state.pt']);
			const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as {step: number; kind: string};
			expect(meta.step).toBe(Number(FINAL.exec(name)?.[1]));
			expect(meta.kind).toBe('periodic');
			const state = readFileSync(path.join(dir, 'state.pt'));
			expect(state.length).toBe(65536);
			// A torch.save-like zip: end-of-central-directory record at size − 22.
			expect(state.readUInt32LE(state.length - 22)).toBe(0x06054b50);
		}
	});

	it('with --slow-save-seconds, shows a partial .tmp directory mid-save, then renames it into place', async () => {
		const job = await start({ranks: 1, workers: 0, stepSeconds: 0.05, saveEvery: 2, slowSaveSeconds: 1});
		await job.ranksReady();
		const [tmp] = await until(
			() => entries(job, TMP),
			names => names.length > 0,
			'a .tmp checkpoint directory',
			5000,
		);
		expect(tmp).toMatch(/^checkpoint_step_2_\d{8}_\d{6}\.tmp$/);
		const finalName = tmp!.slice(0, -'.tmp'.length);
		expect(readdirSync(path.join(job.checkpointDir, tmp!))).not.toContain('meta.json');
		expect(existsSync(path.join(job.checkpointDir, finalName))).toBe(false);
		expect(existsSync(path.join(job.checkpointDir, 'checkpoint_metadata.json'))).toBe(false);

		await job.waitForLine(new RegExp(`^rank 0 step 2 saved ${finalName} \\(periodic\\)$`), 5000);
		expect(existsSync(path.join(job.checkpointDir, tmp!))).toBe(false);
		expect(readdirSync(path.join(job.checkpointDir, finalName)).sort()).toEqual(['meta.json', 'state.pt']);
		expect(readMetadata(job).latest_checkpoint.checkpoint_path).toBe(`./checkpoints/${finalName}`);
	});
});

describe('demo job: signals', () => {
	it('SIGUSR1 to rank 0 makes a manual checkpoint and it keeps running, twice; the other ranks save their shard', async () => {
		const job = await start({ranks: 3, workers: 1, stepSeconds: 0.05, saveEvery: 0, noUsr1Ranks: [2]});
		const ranks = await job.ranksReady();
		const rank0 = see(ranks.get(0)!);
		const rank1 = see(ranks.get(1)!);

		process.kill(rank0.pid, 'SIGUSR1');
		const line = await job.waitForLine(/^rank 0 step \d+ saved \S+ \(manual\)$/, 5000);
		const name = /saved (\S+)/.exec(line)![1]!;
		expect(name).toMatch(FINAL);
		expect(readMetadata(job).latest_checkpoint).toMatchObject({
			kind: 'manual',
			checkpoint_path: `./checkpoints/${name}`,
		});
		expect(job.output()).toMatch(/^rank 0 got SIGUSR1$/m);

		// Later events, so the checks below cover the time since: ranks 0 and 1 each answer another SIGUSR1 with a save
		// at a later step.
		process.kill(rank0.pid, 'SIGUSR1');
		process.kill(rank1.pid, 'SIGUSR1');
		const manualSteps = (): number[] =>
			[...job.output().matchAll(/^rank 0 step (\d+) saved \S+ \(manual\)$/gm)].map(m => Number(m[1]));
		const steps = await until(manualSteps, found => found.length === 2, "rank 0's second manual save", 5000);
		expect(steps[1]).toBeGreaterThan(steps[0]!);
		await job.waitForLine(/^rank 1 saved \(shard\) at step \d+ \(manual\)$/, 5000);
		expect(isRunning(rank0)).toBe(true);
		expect(isRunning(rank1)).toBe(true);
		expect(isRunning(see(job.launcherPid))).toBe(true);
		expect(job.output()).not.toMatch(/^launcher: rank [012] /m);
	});

	it('SIGUSR1 kills a --no-usr1 rank, and the launcher then stops the others as torchrun does: they save and exit 99', async () => {
		const job = await start({ranks: 3, workers: 1, stepSeconds: 0.05, saveEvery: 0, noUsr1Ranks: [2]});
		const ranks = await job.ranksReady();
		const rank2 = see(ranks.get(2)!);
		const rank2Worker = see(job.workerPids().get(2)![0]!);

		process.kill(rank2.pid, 'SIGUSR1');
		await job.waitForLine(new RegExp(`^launcher: rank 2 pid ${rank2.pid} was killed by SIGUSR1$`), 5000);
		await job.waitForLine(/^launcher: rank 2 failed: stopping the other 2 ranks \(SIGTERM\), as torchrun does$/, 5000);
		expect(await job.exited).toBe(99);
		const out = job.output();
		for (const rank of [0, 1])
			expect(out).toMatch(new RegExp(`^launcher: rank ${rank} pid ${ranks.get(rank)} exited with code 99$`, 'm'));
		expect(out).toMatch(/^rank 0 step \d+ saved \S+ \(emergency\)$/m);
		await until(
			() => isRunning(rank2Worker),
			running => !running,
			"the dead rank's worker to exit by itself",
			3000,
		);
	});

	it('SIGTERM to the launcher: forwarded, rank 0 saves an emergency checkpoint, ranks exit 99, nothing is left', async () => {
		const job = await start({ranks: 4, workers: 2, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 5});
		const ranks = await job.ranksReady();
		const all = everyProcess(job, ranks);
		expect(all).toHaveLength(1 + 4 + 8);

		process.kill(job.launcherPid, 'SIGTERM');
		expect(await job.exited).toBe(99);
		const out = job.output();
		expect(out).toMatch(/^launcher: got SIGTERM, forwarding to 4 ranks$/m);
		for (const [rank, pid] of ranks)
			expect(out).toMatch(new RegExp(`^launcher: rank ${rank} pid ${pid} exited with code 99$`, 'm'));
		expect(out).not.toMatch(/SIGKILL/);
		const metadata = readMetadata(job);
		expect(metadata.latest_checkpoint.kind).toBe('emergency');
		expect(entries(job, FINAL)).toEqual([path.basename(metadata.latest_checkpoint.checkpoint_path)]);
		// Checked before any stop(): the job cleaned up by itself. Workers may take one poll to be reaped.
		await until(
			() => all.filter(isRunning).map(proc => proc.pid),
			left => left.length === 0,
			'every process of the job to exit',
			2000,
		);
	});

	it('SIGINT to rank 0: it saves and exits 0 while the others keep running', async () => {
		const job = await start({ranks: 2, workers: 1, stepSeconds: 0.05, saveEvery: 0});
		const ranks = await job.ranksReady();
		const rank0Worker = see(job.workerPids().get(0)![0]!);
		const rank1 = see(ranks.get(1)!);

		process.kill(ranks.get(0)!, 'SIGINT');
		await job.waitForLine(new RegExp(`^launcher: rank 0 pid ${ranks.get(0)} exited with code 0$`), 5000);
		expect(job.output()).toMatch(/^rank 0 step \d+ saved checkpoint_step_\d+_\d{8}_\d{6} \(emergency\)$/m);
		expect(readMetadata(job).latest_checkpoint.kind).toBe('emergency');
		expect(isRunning(rank0Worker)).toBe(false); // the rank ended its workers before exiting
		expect(isRunning(rank1)).toBe(true);
		expect(isRunning(see(job.launcherPid))).toBe(true);
	});

	it('SIGKILL of the launcher: ranks and workers exit by themselves, saving nothing', async () => {
		const job = await start({ranks: 3, workers: 2, stepSeconds: 0.05, saveEvery: 0});
		const ranks = await job.ranksReady();
		const orphans = everyProcess(job, ranks).slice(1);
		expect(orphans).toHaveLength(3 + 6);

		process.kill(job.launcherPid, 'SIGKILL');
		expect(await job.exited).toBeNull();
		expect(job.exitSignal()).toBe('SIGKILL');
		await until(
			() => orphans.filter(isRunning).map(proc => proc.pid),
			left => left.length === 0,
			'the orphaned ranks and workers to exit',
			4000,
		);
		for (const rank of ranks.keys()) await job.waitForLine(new RegExp(`^rank ${rank}: launcher \\d+ is gone`), 2000);
		expect(existsSync(job.checkpointDir)).toBe(false);
	});

	it('the launcher escalates to SIGKILL after --shutdown-timeout; a save cut short leaves only its .tmp', async () => {
		const job = await start({
			ranks: 2,
			workers: 1,
			stepSeconds: 0.05,
			saveEvery: 1,
			slowSaveSeconds: 5,
			shutdownTimeoutS: 1.5,
		});
		const ranks = await job.ranksReady();
		const all = everyProcess(job, ranks);
		await until(
			() => entries(job, TMP),
			names => names.length > 0,
			'rank 0 inside a save',
			5000,
		);

		expect(await job.stop()).toBe(1); // rank 0 died of SIGKILL, so no exit code of its own
		const out = job.output();
		expect(out).toMatch(/^launcher: shutdown timeout \(1\.5s\): SIGKILL to 1 ranks$/m);
		expect(out).toMatch(new RegExp(`^launcher: rank 0 pid ${ranks.get(0)} was killed by SIGKILL$`, 'm'));
		expect(out).toMatch(new RegExp(`^launcher: rank 1 pid ${ranks.get(1)} exited with code 99$`, 'm'));
		expect(entries(job, FINAL)).toEqual([]);
		expect(entries(job, TMP)).toHaveLength(1);
		await until(
			() => all.filter(isRunning).map(proc => proc.pid),
			left => left.length === 0,
			'every process of the job to exit',
			2000,
		);
	});
});

describe('demo job: memory', () => {
	it('--leak-mb-per-min makes VmRSS grow', async () => {
		const job = await start({ranks: 1, workers: 0, stepSeconds: 0.05, saveEvery: 0, leakMbPerMin: 3000}); // 50 MiB/s
		const pid = (await job.ranksReady()).get(0)!;
		const before = vmRssKiB(pid);
		// Polled: the first reading past 40 MiB of growth, which must have come in small steps, not as one lump.
		const grown = await until(
			() => vmRssKiB(pid) - before,
			kib => kib > 40 * 1024,
			'VmRSS to grow by 40 MiB',
			5000,
		);
		expect(grown).toBeGreaterThan(40 * 1024);
		expect(grown).toBeLessThan(200 * 1024);
	});
});

describe('demo job: wrapper', () => {
	it('finds demo/job from the module URL', () => {
		expect(path.isAbsolute(DEMO_JOB_DIR)).toBe(true);
		for (const file of ['launcher.py', 'rank.py', 'checkpointing.py'])
			expect(statSync(path.join(DEMO_JOB_DIR, file)).isFile()).toBe(true);
	});

	it('names the missing interpreter in its error', async () => {
		expect(findPython('python3', '')).toBeNull();
		expect(() => requirePython('python3', '/nonexistent-dir')).toThrow(/python3 was not found on PATH/);
		const dir = runDir();
		await expect(startDemoJob({runDir: dir, python: '/nonexistent/python3'})).rejects.toThrow(
			/\/nonexistent\/python3 is not an executable file/,
		);
		expect(existsSync(dir)).toBe(false);
	});

	it('passes options to the launcher and rejects nonsense', () => {
		expect(demoLauncherArgs({runDir: 'x', ranks: 2, noUsr1Ranks: [0, 3], exitWithParent: false}, '/r')).toEqual([
			'--run-dir',
			'/r',
			'--ranks',
			'2',
			'--no-usr1-rank',
			'0,3',
		]);
		expect(() => demoLauncherArgs({runDir: 'x', ranks: 0}, '/r')).toThrow(RangeError);
		expect(() => demoLauncherArgs({runDir: 'x', stepSeconds: Number.NaN}, '/r')).toThrow(RangeError);
		expect(() => demoLauncherArgs({runDir: 'x', noUsr1Ranks: [-1]}, '/r')).toThrow(RangeError);
	});
});

import {spawn} from 'node:child_process';
import {existsSync} from 'node:fs';
import {mkdir, mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {ROOT} from '../helpers/dist.js';
import {type RankLauncher, startRankLauncher} from '../helpers/rank-launcher.js';
import {runCli} from '../helpers/run-cli.js';

// examples/python/train.py as real ranks (python3; the toy model when torch is not installed), seen and signalled through
// the built CLI: traintop must read the handlers the example installs, and its saves must be what traintop's seed
// layout expects (kind, keep-N, complete vs partial).

const TRAIN = path.join(ROOT, 'examples/python/train.py');
const NAME = /^checkpoint_step_(\d+)_\d{8}_\d{6}$/;
/** What a rank must not inherit from whoever runs the tests: its identity and a process group to join. */
const SCRUB = [
	'RANK',
	'LOCAL_RANK',
	'WORLD_SIZE',
	'LOCAL_WORLD_SIZE',
	'MASTER_ADDR',
	'MASTER_PORT',
	'SLURM_PROCID',
	'SLURM_LOCALID',
	'SLURM_NTASKS',
];

interface Rank {
	readonly rank: number;
	readonly pid: number;
	/** Sends a signal to the rank, if it still runs. */
	kill(signal: NodeJS.Signals): void;
	running(): boolean;
	readonly lines: string[];
	readonly exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>;
	/** The first line (printed so far or later) that matches; rejects when the rank exits or at the deadline. */
	waitForLine(pattern: RegExp | ((line: string) => boolean), timeoutMs?: number): Promise<string>;
}

let dir = '';
let runDir = '';
let started: Rank[] = [];
let launcher: RankLauncher | null = null;

beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-example-'));
	runDir = path.join(dir, 'run');
});

afterEach(async () => {
	await launcher?.stop();
	launcher = null;
	started = [];
	await rm(dir, {recursive: true, force: true});
});

/** Only this test's ranks: their command line names this test's run dir. */
const match = (): string => `train\\.py --run-dir ${runDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( |$)`;

/** Starts one rank of train.py and resolves once it printed "ready" (its handlers are installed by then). */
async function startRank(rank: number, worldSize: number, args: readonly string[] = []): Promise<Rank> {
	const env: NodeJS.ProcessEnv = {...process.env};
	for (const name of SCRUB) delete env[name];
	// The ranks' parent is one launcher, as torchrun's agent is (test/helpers/rank-launcher.ts); TORCHELASTIC_RUN_ID as
	// that agent sets it for its workers: the ranks are one job, without the rendezvous MASTER_ADDR would start.
	launcher ??= startRankLauncher(dir);
	const argv = [TRAIN, '--run-dir', runDir, '--step-seconds', '0.05', '--save-every', '0', '--log-every', '5', ...args];
	const launched = await launcher.launch(['python3', ...argv], {
		...env,
		RANK: String(rank),
		LOCAL_RANK: String(rank),
		WORLD_SIZE: String(worldSize),
		TORCHELASTIC_RUN_ID: `traintop-example-${process.pid}`,
	});
	const {pid, lines, exited} = launched;
	const waitForLine = (pattern: RegExp | ((line: string) => boolean), timeoutMs = 10_000): Promise<string> =>
		new Promise((resolve, reject) => {
			const matches = typeof pattern === 'function' ? pattern : (line: string) => pattern.test(line);
			const check = (): void => {
				const found = lines.find(matches);
				if (found === undefined && launched.running()) return;
				clearTimeout(timer);
				stop();
				if (found !== undefined) resolve(found);
				else
					reject(
						new Error(
							`rank ${rank} exited without a line matching ${pattern}:\n${lines.join('\n')}\n${launched.stderr()}`,
						),
					);
			};
			const timer = setTimeout(() => {
				stop();
				reject(
					new Error(
						`rank ${rank}: no line matching ${pattern} within ${timeoutMs} ms:\n${lines.join('\n')}\n${launched.stderr()}`,
					),
				);
			}, timeoutMs);
			const stop = launched.onChange(check);
			check();
		});
	const handle: Rank = {
		rank,
		pid,
		lines,
		exited,
		waitForLine,
		running: launched.running,
		kill: launched.kill,
	};
	started.push(handle);
	const ready = await waitForLine(/^rank \d+ ready pid \d+/);
	// The toy model without PyTorch (as here), the torch one where it is installed: both must pass.
	expect(ready).toMatch(
		new RegExp(`^rank ${rank} ready pid ${pid} \\(local rank ${rank} of ${worldSize}, (toy|torch) model\\)$`),
	);
	return handle;
}

type RanksJson = {
	ranks: {
		rank: number;
		local_rank: number;
		world_size: number;
		pid: number;
		signals: Record<string, {disposition: string; terminates_by_default: boolean}>;
	}[];
};
type SignalJson = {
	signal: string;
	results: {rank: number; pid: number; outcome: string}[];
	checkpoint?: {saved: boolean; name: string | null; step: number | null; kind: string | null};
};
type IndexJson = {
	layouts: string[];
	checkpoints: {name: string; layout: string; step: number | null; status: string; kind: string}[];
	retention: {keep: number | null; source: string; count: number};
};

async function index(): Promise<IndexJson> {
	const {code, stdout, stderr} = await runCli(['checkpoints', runDir, '--json']);
	expect(code, stderr).toBe(0);
	return JSON.parse(stdout) as IndexJson;
}

async function checkpointEntries(): Promise<string[]> {
	return (await readdir(path.join(runDir, 'checkpoints'))).sort();
}

async function metadata(): Promise<{
	checkpoints: {checkpoint_path: string; kind: string; step: number}[];
	latest_checkpoint: {step: number};
	max_checkpoints: number;
}> {
	return JSON.parse(await readFile(path.join(runDir, 'checkpoints', 'checkpoint_metadata.json'), 'utf8')) as never;
}

describe('examples/python/train.py under traintop', () => {
	test('two ranks: handlers seen, save → manual checkpoint and training goes on, emergency → checkpoint and exit 99', async () => {
		const ranks = [await startRank(0, 2), await startRank(1, 2)];

		// 1. traintop finds exactly these two ranks and sees that they handle the signals it sends.
		const scan = await runCli(['ranks', '--json', '--match', match(), '--nvidia-smi', '/nonexistent']);
		expect(scan.code, scan.stderr).toBe(0);
		const found = (JSON.parse(scan.stdout) as RanksJson).ranks;
		expect(found.map(r => [r.rank, r.local_rank, r.world_size, r.pid])).toEqual([
			[0, 0, 2, ranks[0]!.pid],
			[1, 1, 2, ranks[1]!.pid],
		]);
		for (const r of found) {
			for (const signal of ['SIGUSR1', 'SIGTERM', 'SIGINT'])
				expect(r.signals[signal]?.disposition, `rank ${r.rank} ${signal}`).toBe('handled');
			// Not everything is caught: SIGUSR2 still kills, so traintop would refuse to send it.
			expect(r.signals.SIGUSR2).toMatchObject({disposition: 'default', terminates_by_default: true});
		}

		// 2. save: SIGUSR1 to both, rank 0 writes a complete manual checkpoint, traintop reports it.
		const save = await runCli([
			'signal',
			'save',
			runDir,
			'--yes',
			'--wait',
			'--timeout',
			'10',
			'--json',
			'--match',
			match(),
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(save.code, save.stderr).toBe(0);
		const saved = JSON.parse(save.stdout) as SignalJson;
		expect(saved.signal).toBe('SIGUSR1');
		expect(saved.results.map(r => [r.rank, r.pid, r.outcome])).toEqual([
			[0, ranks[0]!.pid, 'sent'],
			[1, ranks[1]!.pid, 'sent'],
		]);
		expect(saved.checkpoint).toMatchObject({saved: true, kind: 'manual'});
		const manual = saved.checkpoint!.name!;
		const manualStep = Number(NAME.exec(manual)?.[1]);
		expect(saved.checkpoint!.step).toBe(manualStep);
		expect(existsSync(path.join(runDir, 'checkpoints', manual, 'state.pt'))).toBe(true);
		expect(await checkpointEntries()).toEqual(['checkpoint_metadata.json', manual]);
		expect(await ranks[0]!.waitForLine(/ saved /)).toBe(`rank 0 step ${manualStep} saved ${manual} (manual)`);
		await ranks[1]!.waitForLine(/^rank 1 got SIGUSR1$/);
		const ack = await ranks[1]!.waitForLine(/^rank 1 step \d+ acknowledged the manual save \(rank 0 writes it\)$/);
		const acted = [manualStep, Number(/step (\d+)/.exec(ack)?.[1])];

		const afterSave = await index();
		expect(afterSave.layouts).toContain('seed');
		expect(afterSave.checkpoints).toEqual([
			expect.objectContaining({name: manual, layout: 'seed', step: manualStep, status: 'complete', kind: 'manual'}),
		]);
		expect(afterSave.retention).toMatchObject({keep: 3, source: 'metadata', count: 1});

		// …and both ranks go on training after it.
		for (const r of ranks)
			await r.waitForLine(line => Number(/^rank \d step (\d+) loss /.exec(line)?.[1]) > acted[r.rank]!);

		// 3. emergency: SIGTERM to both, rank 0 writes an emergency checkpoint, both exit 99 ("requeue me").
		const emergency = await runCli([
			'signal',
			'emergency',
			runDir,
			'--yes',
			'--wait',
			'--timeout',
			'10',
			'--json',
			'--match',
			match(),
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(emergency.code, emergency.stderr).toBe(0);
		const term = JSON.parse(emergency.stdout) as SignalJson;
		expect(term.signal).toBe('SIGTERM');
		expect(term.results.map(r => r.outcome)).toEqual(['sent', 'sent']);
		expect(term.checkpoint).toMatchObject({saved: true, kind: 'emergency'});
		expect((await Promise.all(ranks.map(r => r.exited))).map(e => e.code)).toEqual([99, 99]);
		const last = term.checkpoint!.name!;
		const lastStep = Number(NAME.exec(last)?.[1]);
		expect(ranks[0]!.lines).toContain(`rank 0 exiting with code 99 at step ${lastStep}`);
		expect(ranks[1]!.lines.at(-1)).toMatch(/^rank 1 exiting with code 99 at step \d+$/);

		const afterTerm = await index();
		expect(afterTerm.checkpoints.map(c => [c.name, c.status, c.kind])).toEqual([
			[manual, 'complete', 'manual'],
			[last, 'complete', 'emergency'],
		]);
		// In the directory's (sorted) order: step 117 sorts before step 60.
		expect(await checkpointEntries()).toEqual(['checkpoint_metadata.json', manual, last].sort());
		expect((await metadata()).latest_checkpoint.step).toBe(lastStep);
	});

	test('SIGINT: an emergency checkpoint and exit 0; started again, the ranks resume from it', async () => {
		const ranks = [await startRank(0, 2), await startRank(1, 2)];
		for (const r of ranks) await r.waitForLine(/ step 5 loss /);
		for (const r of ranks) r.kill('SIGINT');
		expect((await Promise.all(ranks.map(r => r.exited))).map(e => e.code)).toEqual([0, 0]);
		const line = ranks[0]!.lines.find(l => / saved /.test(l)) ?? '';
		const [, step, name] = /^rank 0 step (\d+) saved (checkpoint_step_\d+_\d{8}_\d{6}) \(emergency\)$/.exec(line) ?? [];
		expect(name, ranks[0]!.lines.join('\n')).toBeDefined();
		expect(ranks[1]!.lines.some(l => / saved /.test(l))).toBe(false); // only rank 0 writes
		expect((await index()).checkpoints.map(c => [c.name, c.status, c.kind, c.step])).toEqual([
			[name, 'complete', 'emergency', Number(step)],
		]);

		const again = await startRank(0, 1);
		expect(await again.waitForLine(/ resumed /)).toBe(
			`rank 0 resumed at step ${step} from ${path.join(runDir, 'checkpoints', name!)}`,
		);
		// It counts on from there: the first loss line is of the first multiple of 5 after the saved step.
		expect(await again.waitForLine(/ loss /)).toMatch(
			new RegExp(`^rank 0 step ${(Math.floor(Number(step) / 5) + 1) * 5} loss `),
		);
	});

	test('a save killed before its rename leaves only the .tmp directory: partial to traintop, the metadata untouched', async () => {
		// The module itself, in a process that dies (os._exit, as abrupt as SIGKILL) right after state.pt is written.
		const script = [
			'import os, sys',
			'sys.dont_write_bytecode = True',
			`sys.path.insert(0, ${JSON.stringify(path.dirname(TRAIN))})`,
			'import traintop_signals as ts',
			'run_dir = sys.argv[1]',
			'print(ts.save_checkpoint(run_dir, 5, b"first", "periodic", 3), flush=True)',
			'ts._fsync_dir = lambda path: os._exit(9)',
			'ts.save_checkpoint(run_dir, 10, b"second", "manual", 3)',
		].join('\n');
		const child = spawn('python3', ['-c', script, runDir], {stdio: ['ignore', 'pipe', 'inherit']});
		let out = '';
		child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
		const code = await new Promise<number | null>(resolve => child.once('close', resolve));
		expect(code).toBe(9);
		const first = out.trim();
		expect(first).toMatch(/^checkpoint_step_5_\d{8}_\d{6}$/);
		const entries = await checkpointEntries();
		const partial = entries.find(name => name.startsWith('checkpoint_step_10_')) ?? '';
		expect(partial).toMatch(/^checkpoint_step_10_\d{8}_\d{6}\.tmp$/);
		expect(entries).toEqual(['checkpoint_metadata.json', partial, first]);
		expect(await readFile(path.join(runDir, 'checkpoints', partial, 'state.pt'), 'utf8')).toBe('second');
		expect((await metadata()).latest_checkpoint.step).toBe(5);
		expect((await index()).checkpoints.map(c => [c.name, c.step, c.status, c.kind])).toEqual([
			[first, 5, 'complete', 'periodic'],
			[partial, 10, 'partial', 'unknown'],
		]);
	});

	test("keep-N: only the newest complete checkpoints stay, in the metadata too; a killed save's .tmp is partial and left alone", async () => {
		// What a save killed halfway leaves behind (the directory is renamed only once state.pt is complete).
		const stale = 'checkpoint_step_1_20200101_000000.tmp';
		await mkdir(path.join(runDir, 'checkpoints', stale), {recursive: true});
		await writeFile(path.join(runDir, 'checkpoints', stale, 'state.pt'), Buffer.alloc(100));

		const rank = await startRank(0, 1, ['--save-every', '3', '--keep', '2']);
		await rank.waitForLine(/^rank 0 step 12 saved checkpoint_step_12_\d+_\d+ \(periodic\)$/);
		rank.kill('SIGINT');
		expect((await rank.exited).code).toBe(0);
		const saves = rank.lines.map(l => /^rank 0 step (\d+) saved (\S+) \((\w+)\)$/.exec(l)).filter(m => m !== null);
		expect(saves.length).toBeGreaterThanOrEqual(5);
		expect(saves.slice(0, 4).map(m => [m[1], m[3]])).toEqual([
			['3', 'periodic'],
			['6', 'periodic'],
			['9', 'periodic'],
			['12', 'periodic'],
		]);
		expect(saves.at(-1)![3]).toBe('emergency');
		const newest = saves.slice(-2).map(m => m[2]!);

		expect(await checkpointEntries()).toEqual(['checkpoint_metadata.json', ...newest, stale].sort());
		const meta = await metadata();
		expect(meta.max_checkpoints).toBe(2);
		expect(meta.checkpoints.map(c => path.basename(c.checkpoint_path))).toEqual(newest);

		const found = await index();
		expect(found.retention).toMatchObject({keep: 2, source: 'metadata', count: 2});
		const byName = new Map(found.checkpoints.map(c => [c.name, c]));
		expect(byName.get(stale)).toMatchObject({status: 'partial', step: 1});
		expect(newest.map(n => [byName.get(n)?.status, byName.get(n)?.kind])).toEqual([
			['complete', saves.at(-2)![3]],
			['complete', 'emergency'],
		]);
		expect(found.checkpoints).toHaveLength(3);
	});
});

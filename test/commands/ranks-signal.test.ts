import {mkdtemp, readdir, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {startDemoJob, type DemoJob} from '../../src/demo/job.js';
import {allGotSigterm, answer, endJob} from '../helpers/demo-signals.js';
import {runCli} from '../helpers/run-cli.js';

// `traintop ranks` and `traintop signal` as real child processes against the demo job: a
// torchrun-shaped tree (launcher → 4 ranks, each leading its own session → 2 workers each).

let dir: string;
let job: DemoJob | null = null;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-ranks-cli-'));
});
afterEach(async () => {
	await job?.stop();
	job = null;
	await rm(dir, {recursive: true, force: true});
});

async function demo(options: {noUsr1Ranks?: number[]} = {}) {
	job = await startDemoJob({
		runDir: dir,
		ranks: 4,
		workers: 2,
		stepSeconds: 0.05,
		saveEvery: 0,
		shutdownTimeoutS: 3,
		...options,
	});
	const ranks = await job.ranksReady();
	return {job, ranks};
}

type RanksJson = {
	ranks: {
		rank: number;
		pid: number;
		workers: number[];
		local_rank: number;
		world_size: number;
		signals: Record<string, {disposition: string}>;
	}[];
	launcher: {pid: number; cmd: string} | null;
};

async function checkpoints(): Promise<{kind: string; checkpoint_path: string}[]> {
	try {
		return (
			JSON.parse(await readFile(path.join(dir, 'checkpoints', 'checkpoint_metadata.json'), 'utf8')) as {
				checkpoints: {kind: string; checkpoint_path: string}[];
			}
		).checkpoints;
	} catch {
		return [];
	}
}

describe('traintop ranks', () => {
	test("finds exactly the 4 ranks, groups the 8 workers, finds the launcher, reads each rank's handlers", async () => {
		const {job, ranks} = await demo({noUsr1Ranks: [3]});
		const {code, stdout} = await runCli([
			'ranks',
			'--json',
			'--pid',
			String(job.launcherPid),
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(code).toBe(0);
		const out = JSON.parse(stdout) as RanksJson;
		expect(out.ranks.map(r => [r.rank, r.pid])).toEqual([...ranks.entries()].sort((a, b) => a[0] - b[0]));
		const workers = job.workerPids();
		for (const r of out.ranks) {
			expect(r.workers.sort()).toEqual([...(workers.get(r.rank) ?? [])].sort());
			expect(r).toMatchObject({local_rank: r.rank, world_size: 4});
			expect(r.signals.SIGTERM?.disposition).toBe('handled');
			expect(r.signals.SIGUSR1?.disposition).toBe(r.rank === 3 ? 'default' : 'handled');
			expect(r.signals.SIGUSR2?.disposition).toBe('default');
		}
		expect(out.launcher?.pid).toBe(job.launcherPid);
		expect(out.launcher?.cmd).toContain('launcher.py');
	});

	test('the readable table: a row per rank, the launcher line and the legend', async () => {
		const {job} = await demo({noUsr1Ranks: [3]});
		const {code, stdout} = await runCli(['ranks', '--pid', String(job.launcherPid), '--nvidia-smi', '/nonexistent']);
		expect(code).toBe(0);
		const lines = stdout.split('\n');
		expect(lines[0]).toMatch(
			/^RANK +LOCAL +PID +ST +CPU% +RSS +GPU +WRK +TERM +INT +USR1 +USR2 +CONT +HUP +QUIT +CMD$/,
		);
		// The job's header line, then its ranks.
		expect(lines[1]).toMatch(
			new RegExp(
				`^job launcher\\.py:${job.launcherPid}  4 ranks \\(world 4\\)  in ${dir}  launcher ${job.launcherPid} \\S*python3 `,
			),
		);
		const rows = lines.slice(2, 6);
		expect(rows.map(r => r.split(/ +/)[0])).toEqual(['0', '1', '2', '3']);
		// TERM ✓, INT ✓, USR1 ✓ (✗ on rank 3), USR2 ✗, CONT -, HUP ✗, QUIT ✗; 2 workers each. Piped, the command
		// line is whole, from wherever the interpreter is installed (ranks-wide.test.ts checks all of it).
		expect(rows[0]).toMatch(/ 2 +✓ +✓ +✓ +✗ +- +✗ +✗ +\S*python3 \//);
		expect(rows[3]).toMatch(/ 2 +✓ +✓ +✗ +✗ +- +✗ +✗ +\S*python3 \//);
		expect(stdout).toContain('1 job, 4 ranks on ');
		expect(stdout).toContain('✓ handled · ✗ no handler: the signal kills');
	});

	test('no ranks: says where it looked, exit 0', async () => {
		const {code, stdout} = await runCli([
			'ranks',
			'--match',
			'no-such-training-job-[0-9a-f]{32}',
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(code).toBe(0);
		expect(stdout.trim()).toBe(
			'no ranks found among processes whose command line matches /no-such-training-job-[0-9a-f]{32}/',
		);
	});
});

describe('traintop signal', () => {
	test('save: every rank gets SIGUSR1, rank 0 writes a manual checkpoint, the job keeps running', async () => {
		const {job, ranks} = await demo();
		const {code, stdout, stderr} = await runCli([
			'signal',
			'save',
			'--yes',
			'--pid',
			String(job.launcherPid),
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(stderr).toContain(
			`SIGUSR1 (save) to 4 of 4 ranks of job launcher.py:${job.launcherPid} (the only job found with --pid ${job.launcherPid}):`,
		);
		expect(code).toBe(0);
		expect(stdout.trim().split('\n')).toEqual(
			[...ranks.entries()].sort((a, b) => a[0] - b[0]).map(([r, pid]) => `rank ${r}  pid ${pid}  sent`),
		);
		await job.waitForLine(/rank 0 step \d+ saved checkpoint_step_\d+_\d+_\d+ \(manual\)/, 10_000);
		const saved = await checkpoints();
		expect(saved.at(-1)?.kind).toBe('manual');
		expect(await readdir(path.join(dir, 'checkpoints'))).toContain(path.basename(saved.at(-1)!.checkpoint_path));
		// Still running: every rank answers another scan.
		const again = await runCli(['ranks', '--json', '--pid', String(job.launcherPid), '--nvidia-smi', '/nonexistent']);
		expect((JSON.parse(again.stdout) as RanksJson).ranks).toHaveLength(4);
	});

	test('save with a rank that has no SIGUSR1 handler: refused for that rank (exit 3), which keeps running', async () => {
		const {job, ranks} = await demo({noUsr1Ranks: [3]});
		const {code, stdout} = await runCli([
			'signal',
			'save',
			'--yes',
			'--json',
			'--pid',
			String(job.launcherPid),
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(code).toBe(3);
		const out = JSON.parse(stdout) as {
			signal: string;
			results: {rank: number; outcome: string; reason: string | null}[];
		};
		expect(out.signal).toBe('SIGUSR1');
		expect(out.results.map(r => [r.rank, r.outcome])).toEqual([
			[0, 'sent'],
			[1, 'sent'],
			[2, 'sent'],
			[3, 'refused'],
		]);
		expect(out.results[3]?.reason).toBe(
			'rank 3 has no handler for SIGUSR1: the signal would terminate it (--force sends it anyway)',
		);
		const after = JSON.parse(
			(await runCli(['ranks', '--json', '--pid', String(job.launcherPid), '--nvidia-smi', '/nonexistent'])).stdout,
		) as RanksJson;
		expect(after.ranks.map(r => r.pid)).toContain(ranks.get(3));
		// Alive after the send, by a later event: rank 3 handles the SIGTERM that ends the job (a SIGUSR1 would have
		// killed it first).
		expect(await endJob(job, 4)).toEqual(allGotSigterm(4));
		expect(job.output()).not.toMatch(/rank 3 .*killed by SIGUSR1/);
	});

	test('SIGUSR2 is refused for ranks without a handler and they keep running; --force sends it and the rank dies', async () => {
		const {job, ranks} = await demo();
		const refused = await runCli([
			'signal',
			'SIGUSR2',
			'--rank',
			'2',
			'--yes',
			'--pid',
			String(job.launcherPid),
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(refused.code).toBe(3);
		expect(refused.stdout).toContain(`rank 2  pid ${ranks.get(2)}  refused: rank 2 has no handler for SIGUSR2`);
		// Alive after the refusal, by a later event: rank 2 handles a SIGUSR1 sent after it (a SIGUSR2 would have killed
		// it first).
		process.kill(ranks.get(2)!, 'SIGUSR1');
		expect(await answer(job, 2, 'SIGUSR1')).toBe('rank 2 got SIGUSR1');
		expect(job.output()).not.toMatch(/rank 2 .*SIGUSR2/);
		const forced = await runCli([
			'signal',
			'usr2',
			'--rank',
			'2',
			'--yes',
			'--force',
			'--pid',
			String(job.launcherPid),
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(forced.code).toBe(0);
		expect(forced.stdout).toContain('sent: forced: rank 2 had no handler, the signal terminates it');
		await job.waitForLine(/rank 2 .*killed by SIGUSR2/, 5000);
	});

	test('no terminal and no --yes: nothing is sent, exit 2; --readonly refuses with exit 3', async () => {
		const {job} = await demo();
		const noTty = await runCli(['signal', 'save', '--pid', String(job.launcherPid), '--nvidia-smi', '/nonexistent']);
		expect(noTty.code).toBe(2);
		expect(noTty.stderr).toContain('signal: no terminal to confirm on; add --yes to send SIGUSR1 to 4 rank(s)');
		const readonly = await runCli(['signal', 'save', '--yes', '--readonly', '--pid', String(job.launcherPid)]);
		expect(readonly.code).toBe(3);
		expect(readonly.stderr).toContain('--readonly: no signal is sent');
		// Every rank answers a later signal, the SIGTERM that ends the job: a SIGUSR1 sent before would show first.
		expect(await endJob(job, 4)).toEqual(allGotSigterm(4));
		expect(job.output()).not.toMatch(/SIGUSR1/);
	});

	test('usage errors: unknown signal, unknown rank, missing action → exit 2', async () => {
		const {job} = await demo();
		const pid = String(job.launcherPid);
		const unknownSignal = await runCli(['signal', 'SIGSAVE', '--yes', '--pid', pid]);
		expect(unknownSignal.code).toBe(2);
		expect(unknownSignal.stderr).toContain(
			"unknown signal 'SIGSAVE': use save, emergency or a signal name such as SIGUSR2, USR2 or 12",
		);
		const unknownRank = await runCli([
			'signal',
			'save',
			'--rank',
			'9',
			'--yes',
			'--pid',
			pid,
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(unknownRank.code).toBe(2);
		expect(unknownRank.stderr).toContain(`--rank 9: job launcher.py:${job.launcherPid} has no such rank`);
		expect(unknownRank.stderr).toContain('(found: 0, 1, 2, 3)');
		const missing = await runCli(['signal', '--yes', '--pid', pid]);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toContain('signal needs what to send: save, emergency or a signal name');
	});
});

import {mkdirSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {type LaunchedRank, type RankLauncher, startRankLauncher} from '../helpers/rank-launcher.js';
import {runCli} from '../helpers/run-cli.js';
import {RECORDER, type Recorder, receivedBefore, recorderAt} from '../helpers/signal-recorder.js';
import {until} from '../helpers/until.js';

// What `traintop drill` sends, proved on ranks that write down every signal they receive (signal-recorder.py): the
// save signal and nothing else; and where a rank would die of it, nothing at all. Each job is a real launcher and
// its real ranks (rank-launcher.ts), found by --pid; the built CLI, real signals, real files.

const SAVE_JOB = path.join(import.meta.dirname, '../helpers/signal-save-job.py');

let scratch = '';
let runDir = '';
let launcher: RankLauncher | null = null;
beforeEach(() => {
	scratch = mkdtempSync(path.join(tmpdir(), 'traintop-drill-safety-'));
	runDir = path.join(scratch, 'run');
	mkdirSync(runDir);
	launcher = startRankLauncher(scratch);
});
// The launcher's ranks end on its stop; a loaded machine once needed longer than the default 30 s hook time.
afterEach(async () => {
	await launcher?.stop();
	launcher = null;
	rmSync(scratch, {recursive: true, force: true});
}, 90_000);

function rankEnv(rank: number): NodeJS.ProcessEnv {
	return {
		PATH: process.env.PATH ?? '/usr/bin:/bin',
		RANK: String(rank),
		LOCAL_RANK: String(rank),
		WORLD_SIZE: '2',
		MASTER_ADDR: '127.0.0.1',
		MASTER_PORT: String(22_000 + (process.pid % 20_000)),
	};
}

/** A rank that records every signal it gets (and handles each, so none ends it). */
async function recorderRank(rank: number): Promise<Recorder> {
	const log = path.join(scratch, `rank${rank}.signals`);
	await launcher!.launch(['python3', RECORDER, log], rankEnv(rank));
	return recorderAt(log);
}

function drill(...more: string[]) {
	const pid = String(launcher!.child.pid);
	const args = ['drill', runDir, '--pid', pid, '--yes', '--timeout', '30', '--nvidia-smi', '/nonexistent', ...more];
	return runCli(args, {timeoutMs: 90_000});
}

test('the drill sends the save signal only: the recorder rank got SIGUSR1 and nothing else', async () => {
	// Rank 0 saves ckpt_step<N>.pt when signalled (its file's name says only its step); rank 1 records.
	const saver: LaunchedRank = await launcher!.launch(
		['python3', '-u', SAVE_JOB, runDir, 'generic', 'step-name'],
		rankEnv(0),
	);
	await until(
		() => saver.lines,
		lines => lines.includes('ready'),
		'the saving rank ready',
		30_000,
	);
	const recorder = await recorderRank(1);

	const {code, stdout, stderr} = await drill('--grace', '30', '--json');
	expect(code, stderr).toBe(0);
	const body = JSON.parse(stdout) as {
		signal: string;
		results: {rank: number; outcome: string}[];
		checkpoint: {name: string};
		readiness: {verdict: string};
	};
	expect(body.signal).toBe('SIGUSR1');
	expect(body.results.map(r => [r.rank, r.outcome])).toEqual([
		[0, 'sent'],
		[1, 'sent'],
	]);
	expect(saver.lines).toContain(`saved ${body.checkpoint.name}`);
	expect(body.readiness.verdict).toBe('ready');
	// SIGUSR2 is the test's own ping, sent after the drill ended: everything the drill sent arrived before it.
	expect(await receivedBefore(recorder, 'SIGUSR2')).toEqual(['SIGUSR1', 'SIGUSR2']);
	expect(saver.running()).toBe(true);
}, 120_000);

test('a rank without a handler for SIGUSR1 refuses the drill: named, nothing sent to any rank, exit 3', async () => {
	const recorder = await recorderRank(0);
	// A plain Python rank: SIGUSR1's default action would kill it.
	const plain = await launcher!.launch(['python3', '-c', 'import time; time.sleep(600)'], rankEnv(1));
	const pid = String(plain.pid);
	// Its /proc shows it as the rank it is once python3 runs (the launcher's fork is python3 too: wait for the exec).
	await until(
		() => {
			try {
				return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
			} catch {
				return '';
			}
		},
		cmdline => cmdline.includes('time.sleep'),
		'the plain rank to run',
		30_000,
	);

	const {code, stdout, stderr} = await drill('--json');
	expect(code, stderr).toBe(3);
	expect(stderr).toMatch(new RegExp(`rank 1 \\(pid ${pid}\\) has no handler for SIGUSR1: the signal would kill it`));
	expect(stderr).toMatch(/a drill never forces\); nothing sent/);
	const body = JSON.parse(stdout) as {refused: string; results: unknown[]};
	expect(body.refused).toContain(`rank 1 (pid ${pid})`);
	expect(body.results).toEqual([]);
	// Nothing reached either rank: the plain one still runs, and the recorder's first signal is the test's ping.
	expect(plain.running()).toBe(true);
	expect(await receivedBefore(recorder, 'SIGUSR2')).toEqual(['SIGUSR2']);

	const text = await drill();
	expect(text.code).toBe(3);
	expect(text.stdout).toBe('');
	expect(text.stderr).toMatch(new RegExp(`rank 1 \\(pid ${pid}\\) has no handler for SIGUSR1`));
}, 120_000);

test('a job that handles SIGUSR1 but saves nothing: the drill says no save came, with the verdict from before, exit 3', async () => {
	const rank = await launcher!.launch(['python3', '-u', SAVE_JOB, runDir, 'generic', 'ignore'], {
		...rankEnv(0),
		WORLD_SIZE: '1',
	});
	await until(
		() => rank.lines,
		lines => lines.includes('ready'),
		'the rank ready',
		30_000,
	);
	const pid = String(launcher!.child.pid);
	const args = [
		'drill',
		runDir,
		'--pid',
		pid,
		'--yes',
		'--timeout',
		'3',
		'--grace',
		'30',
		'--nvidia-smi',
		'/nonexistent',
	];
	const {code, stdout, stderr} = await runCli(args, {timeoutMs: 60_000});
	expect(code, stderr).toBe(3);
	expect(stderr).toContain(`drill: no new checkpoint in ${runDir} within 3 s after the signal`);
	// No save at all, before or after: the save time is unknown, and so is the verdict.
	expect(stdout.split('\n')[0]).toBe('drill: no save came; from the saves seen before: unknown');
	expect(stdout).toContain('  unknown: no complete save seen yet');
	expect(rank.running()).toBe(true);
}, 120_000);

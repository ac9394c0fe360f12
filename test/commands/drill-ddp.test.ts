import {existsSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, test} from 'vitest';
import {alive} from '../helpers/fleet-nodes.js';
import {type DdpJob, startDdpJob} from '../helpers/ddp-job.js';
import {requireBuild} from '../helpers/dist.js';
import {runCli} from '../helpers/run-cli.js';
import {until} from '../helpers/until.js';

// `traintop drill` on a real PyTorch DDP job (test/fixtures/jobs/ddp_plain.py: 2 ranks, gloo on CPU, under real
// torchrun; SIGUSR1 saves at the next step, every rank handles SIGTERM). Its periodic saves are 100000 steps apart,
// so the only saves are the drills'; each is written over SAVE_S seconds and the job logs the write time it measured.
// The built CLI, real signals, real files.

const SAVE_S = 3;

let job: DdpJob | null = null;
let dir = '';
afterEach(async () => {
	await job?.stop();
	job = null;
	if (dir) await rm(dir, {recursive: true, force: true});
});

interface DrillJson {
	schema_version: number;
	signal: string;
	results: {rank: number; pid: number; outcome: string}[];
	checkpoint: {name: string; kind: string; attributed: boolean};
	after_signal_s: number;
	write_s: number;
	readiness: {verdict: string; reasons: {code: string; text: string}[]; save_s: {max: number; samples: number}};
}

test('the drill on a real DDP job: its write time within 1 s of the job’s own, ready with --grace 30, the job goes on', async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-drill-ddp-'));
	job = startDdpJob(dir, {saveEvery: 100_000, stepSeconds: 0.05, saveSeconds: SAVE_S});
	const ranks = await job.ranks();
	const common = ['--pid', String(job.launcherPid), '--nvidia-smi', '/nonexistent/nvidia-smi', '--yes'];

	const run = await runCli(['drill', dir, '--grace', '30', '--json', ...common], {timeoutMs: 120_000});
	expect(run.code, run.stderr).toBe(0);
	const body = JSON.parse(run.stdout) as DrillJson;
	expect(body.schema_version).toBe(1);
	expect(body.signal).toBe('SIGUSR1');
	expect(body.results.map(r => [r.pid, r.outcome]).sort()).toEqual(ranks.map(pid => [pid, 'sent']).sort());

	// The job's own account of that save: asked by the signal, and how long it took to write.
	const logged = await until(
		() => job!.saves(),
		saves => saves.length === 1,
		'the job to log its save',
		30_000,
	);
	expect(logged[0]).toMatchObject({name: body.checkpoint.name, reason: 'signal'});
	expect(
		Math.abs(body.write_s - logged[0]!.writeS),
		`drill ${body.write_s} s, job ${logged[0]!.writeS} s`,
	).toBeLessThan(1);
	expect(body.write_s).toBeGreaterThan(SAVE_S - 1);
	// Complete after the signal: at least its write time later.
	expect(body.after_signal_s).toBeGreaterThanOrEqual(body.write_s - 0.1);
	expect(body.checkpoint).toMatchObject({kind: 'manual', attributed: true});

	// Every rank handles SIGTERM, the save took ~3 s and --grace gives 30 s (torchrun's own 30 s kill cuts nothing).
	expect(body.readiness.verdict, JSON.stringify(body.readiness.reasons)).toBe('ready');
	const codes = body.readiness.reasons.map(r => r.code);
	expect(codes).toEqual(expect.arrayContaining(['handlers', 'save-time', 'lead']));
	expect(body.readiness.save_s).toMatchObject({max: body.write_s, samples: 1});

	// SIGUSR1 only: a SIGTERM would have made the job save with reason "exit" and end. It runs on and takes a
	// second drill (text this time: the one line), which it could not if its ranks had left.
	const text = await runCli(['drill', dir, '--grace', '30', ...common], {timeoutMs: 120_000});
	expect(text.code, text.stderr).toBe(0);
	const saves = await until(
		() => job!.saves(),
		list => list.length === 2,
		'the second save logged',
		30_000,
	);
	const second = saves[1]!;
	expect(second.reason).toBe('signal');
	expect(saves.map(s => s.reason)).not.toContain('exit');
	expect(ranks.every(alive)).toBe(true);
	const line = new RegExp(
		`^drill: ${second.name.replace('.', '\\.')} complete (\\d+\\.\\d) s after the signal, written in (\\d+\\.\\d) s; --grace gives 30\\.0 s: ready$`,
	);
	expect(text.stdout.trim(), text.stderr).toMatch(line);
	const written = Number(line.exec(text.stdout.trim())?.[2]);
	expect(Math.abs(written - second.writeS)).toBeLessThan(1);
}, 300_000);

test('the drill on a DDP job with a rank that has no SIGTERM handler, its 3 s saves against --grace 2: not-ready, both named', async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-drill-ddp-'));
	job = startDdpJob(dir, {saveEvery: 100_000, stepSeconds: 0.05, saveSeconds: SAVE_S, noTermHandler: 1});
	await job.ranks();
	const rank1 = /rank 1 ready pid (\d+)/.exec(job.output())?.[1];
	const common = ['--pid', String(job.launcherPid), '--nvidia-smi', '/nonexistent/nvidia-smi', '--yes'];

	// The drill's own signal is SIGUSR1, which every rank handles: it goes ahead, and the verdict says what SIGTERM would do.
	const {code, stdout, stderr} = await runCli(['drill', dir, '--grace', '2', ...common], {timeoutMs: 120_000});
	expect(code, stderr).toBe(0);
	const [save] = await until(
		() => job!.saves(),
		saves => saves.length === 1,
		'the job to log its save',
		30_000,
	);
	const lines = stdout.trim().split('\n');
	expect(lines[0]).toMatch(
		new RegExp(
			`^drill: ${save!.name.replace('.', '\\.')} complete \\d+\\.\\d s after the signal, written in \\d+\\.\\d s; --grace gives 2\\.0 s: not-ready$`,
		),
	);
	expect(lines).toContain(`  not-ready: rank 1 (pid ${rank1}) has no SIGTERM handler: it dies unsaved`);
	expect(
		lines.some(line =>
			/^ {2}at-risk: the slowest save took [\d.]+ s \(ckpt_step\d+\.pt\), longer than the 2 s it gets$/.test(line),
		),
		stdout,
	).toBe(true);
}, 300_000);

test('a periodic save being written when the drill signals is not its answer: the save the signal asked for is', async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-drill-ddp-'));
	// Saves of 6 s every 40 steps (2 s): the drill goes while the first periodic one is being written.
	job = startDdpJob(dir, {saveEvery: 40, stepSeconds: 0.05, saveSeconds: 6});
	await job.ranks();
	const first = path.join(dir, 'checkpoints', 'ckpt_step40.pt');
	await until(() => existsSync(first), Boolean, 'the first periodic save to begin', 120_000);
	expect(job.saves(), 'the periodic save still being written').toEqual([]);
	const common = ['--pid', String(job.launcherPid), '--nvidia-smi', '/nonexistent/nvidia-smi', '--yes'];

	const {code, stdout, stderr} = await runCli(['drill', dir, '--grace', '30', '--json', ...common], {
		timeoutMs: 120_000,
	});
	expect(code, stderr).toBe(0);
	const body = JSON.parse(stdout) as DrillJson & {sent_at: string; under_way?: string[]};
	const saves = await until(
		() => job!.saves(),
		list => list.some(s => s.reason === 'signal'),
		'the save the signal asked for, logged',
		30_000,
	);
	const asked = saves.find(s => s.reason === 'signal')!;
	expect(body.checkpoint.name, stdout).toBe(asked.name);
	expect(Math.abs(body.write_s - asked.writeS)).toBeLessThan(1);
	// Passed over by name when it completed after the signal (else it was complete before, and never a candidate).
	if (job.savedAt('ckpt_step40.pt') > Date.parse(body.sent_at)) expect(body.under_way).toEqual(['ckpt_step40.pt']);
	else expect(body.under_way).toBeUndefined();
}, 300_000);

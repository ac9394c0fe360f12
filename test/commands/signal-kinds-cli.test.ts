import {mkdirSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {runCli} from '../helpers/run-cli.js';
import {type SaveJob, type SaveJobSpec, startSaveJob} from '../helpers/signal-save-job.js';

// `traintop signal save|emergency --wait` on real jobs that record their saves as real jobs do (signal-save-job.py):
// a reason that says only "signal", a file named by its step on a step cadence, a periodic save instead of the one
// asked for, none at all. The built CLI, real signals, real files.

let scratch = '';
let runDir = '';
let job: SaveJob | null = null;
beforeEach(() => {
	scratch = mkdtempSync(path.join(tmpdir(), 'traintop-kinds-'));
	runDir = path.join(scratch, 'run');
	mkdirSync(runDir);
});
afterEach(async () => {
	await job?.stop();
	job = null;
	rmSync(scratch, {recursive: true, force: true});
});

async function start(spec: Omit<SaveJobSpec, 'scratch' | 'runDir'>): Promise<SaveJob> {
	job = await startSaveJob({scratch, runDir, ...spec});
	return job;
}

function signal(action: string, timeoutS: number, ...more: string[]) {
	const pid = String(job!.launcher.child.pid);
	const args = ['signal', action, runDir, '--pid', pid, '--wait', '--yes', '--timeout', String(timeoutS)];
	return runCli([...args, '--nvidia-smi', '/nonexistent', ...more], {timeoutMs: (timeoutS + 30) * 1000});
}

const CLOCK = /\d\d:\d\d:\d\d/.source;

describe('the kind of the save a signal asked for', () => {
	test('a save recorded with reason "signal" after SIGUSR1 is the manual one: reported, exit 0', async () => {
		await start({layout: 'seed', onSignal: 'reason-signal'});
		const {code, stdout, stderr} = await signal('save', 20);
		const name = await job!.saved(0);
		expect(stdout, stderr).toMatch(
			new RegExp(
				`^saved ${name} \\(step \\d+, manual: the job says "signal": after traintop's SIGUSR1 at ${CLOCK}\\) in [\\d.]+ s$`,
				'm',
			),
		);
		expect(code).toBe(0);
	}, 60_000);

	test('the same after SIGTERM is the emergency one', async () => {
		await start({layout: 'seed', onSignal: 'reason-signal'});
		const {code, stdout, stderr} = await signal('emergency', 20);
		const name = await job!.saved(0);
		expect(stdout, stderr).toMatch(
			new RegExp(`^saved ${name} \\(step \\d+, emergency: the job says "signal": after traintop's SIGTERM at `, 'm'),
		);
		expect(code).toBe(0);
		expect(await job!.rank.exited).toEqual({code: 99, signal: null});
	}, 60_000);

	test('ckpt_step<N>.pt off its 300-step cadence, right after SIGUSR1, is manual (--json)', async () => {
		await start({layout: 'generic', onSignal: 'step-name', periodic: 300});
		// Two periodic saves first: the job's cadence is there to be seen.
		await job!.saved(1);
		const {code, stdout, stderr} = await signal('save', 20, '--json');
		expect(code, stderr).toBe(0);
		const body = JSON.parse(stdout) as {checkpoint: Record<string, unknown>};
		// The one save of the job not on its cadence.
		const asked = job!.rank.lines.find(line => Number(/^saved ckpt_step(\d+)\.pt$/.exec(line)?.[1] ?? 300) % 300 !== 0);
		expect(body.checkpoint).toMatchObject({
			saved: true,
			attributed: true,
			note: null,
			name: asked?.slice('saved '.length),
			kind: 'manual',
		});
		expect(body.checkpoint.kind_note).toMatch(new RegExp(`^after traintop's SIGUSR1 at ${CLOCK}$`));
		expect((body.checkpoint.step as number) % 300).not.toBe(0);
	}, 60_000);

	test('SIGUSR1 sent by its name is the save signal all the same', async () => {
		await start({layout: 'generic', onSignal: 'step-name'});
		const {code, stdout, stderr} = await signal('SIGUSR1', 20, '--json');
		expect(code, stderr).toBe(0);
		const body = JSON.parse(stdout) as {checkpoint: Record<string, unknown>};
		expect(body.checkpoint).toMatchObject({saved: true, attributed: true, kind: 'manual'});
	}, 60_000);
});

describe('through an agent', () => {
	test("the node's own watcher takes the save for the one asked: manual, off the cadence", async () => {
		await start({layout: 'generic', onSignal: 'step-name', periodic: 300});
		await job!.saved(0);
		const args = ['signal', 'save', runDir, '--hosts', 'local', '--yes', '--wait', '--json', '--timeout', '20'];
		const done = await runCli([...args, '--interval', '0.5', '--nvidia-smi', '/nonexistent'], {timeoutMs: 60_000});
		expect(done.code, done.stderr).toBe(0);
		const body = JSON.parse(done.stdout) as {route: string; checkpoint: Record<string, unknown>};
		expect(body.route).toBe('agents');
		const saves = job!.rank.lines.filter(line => line.startsWith('saved '));
		expect(body.checkpoint, `${done.stdout}\njob: ${saves.join(', ')}`).toMatchObject({
			saved: true,
			attributed: true,
			kind: 'manual',
		});
		expect(body.checkpoint.kind_note).toMatch(new RegExp(`^after traintop's SIGUSR1 at ${CLOCK}$`));
	}, 90_000);
});

describe('signal --wait exits 3 when the save asked for does not come', () => {
	test('a periodic save lands instead: said, exit 3', async () => {
		await start({layout: 'seed', onSignal: 'ignore', periodic: 60});
		await job!.saved(0);
		const {code, stdout} = await signal('save', 5);
		expect(stdout).toMatch(/no manual checkpoint within 5 s; the next one \(checkpoint_step_\d+\) is periodic$/m);
		expect(code).toBe(3);
	}, 60_000);

	test('nothing is saved: exit 3', async () => {
		await start({layout: 'generic', onSignal: 'ignore'});
		const {code, stdout} = await signal('save', 2);
		expect(stdout).toContain(`no new checkpoint in ${runDir} within 2 s`);
		expect(code).toBe(3);
	}, 60_000);
});

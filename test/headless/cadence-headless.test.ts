import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, test} from 'vitest';
import {MARGIN_FLOOR_S} from '../../src/checkpoints/cadence.js';
import {type DemoJob, startDemoJob} from '../../src/demo/job.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';
import {until} from '../helpers/until.js';

// The built binary, headless, on the demo job (2 torchrun-shaped ranks saving every 20 steps of 50 ms: a 1 s cadence)
// with a manual save on a real SIGUSR1: never OVERDUE while it saves; OVERDUE once its ranks are stopped (SIGSTOP);
// and never again after it ends (max steps reached), read until well past the time its next save would be late.

let dir: string;
let job: DemoJob | null = null;
let run: CliRun | null = null;
afterEach(async () => {
	run?.child.kill('SIGTERM');
	await run?.exited;
	await job?.stop();
	await rm(dir, {recursive: true, force: true});
});

const saved = (stderr: string, kind: string): number =>
	stderr.match(new RegExp(`saved \\S+ \\(${kind},`, 'g'))?.length ?? 0;

test('a saving job is never OVERDUE, manual save and all; OVERDUE once its ranks are stopped; never once it has ended', async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-cadence-'));
	job = await startDemoJob({runDir: dir, ranks: 2, workers: 0, stepSeconds: 0.05, saveEvery: 20, maxSteps: 400});
	const ranks = await job.ranksReady();
	run = startCli([
		dir,
		'--headless',
		'--pid',
		String(job.launcherPid),
		'--nvidia-smi',
		'/nonexistent',
		'--interval',
		'0.2',
		'--no-log',
	]);
	await run.waitFor(out => saved(out.stderr, 'periodic') >= 4, 60_000);
	// A manual save on request, off the cadence.
	process.kill(ranks.get(0)!, 'SIGUSR1');
	await run.waitFor(out => saved(out.stderr, 'manual') >= 1, 30_000);
	const periodic = saved(run.stderr(), 'periodic');
	await run.waitFor(out => saved(out.stderr, 'periodic') >= periodic + 3, 60_000);
	expect(run.stderr()).not.toContain('OVERDUE');
	// Its ranks stopped: the save due does not come.
	for (const pid of ranks.values()) process.kill(pid, 'SIGSTOP');
	await run.waitFor(out => out.stderr.includes('saves OVERDUE: the save due at step'), 60_000);
	for (const pid of ranks.values()) process.kill(pid, 'SIGCONT');
	const overdues = (): number => run!.stderr().split('saves OVERDUE').length - 1;
	const before = overdues();
	const resumed = run.stderr().length;
	// The ranks end at step 400; after that, read on past the 1 s cadence and its margin, with room to spare. (The
	// last save may be said before or after the end: under load the end was said first, then the step-400 save.)
	await run.waitFor(out => /ended|exited/.test(out.stderr.slice(resumed)), 60_000);
	const deadline = Date.now() + (1 + MARGIN_FLOOR_S + 5) * 1000;
	await until(
		() => Date.now(),
		now => now > deadline,
		'past the time a save would have been late',
		60_000,
	);
	expect(overdues()).toBe(before);
}, 240_000);

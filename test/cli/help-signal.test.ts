import {existsSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {startDemoJob, type DemoJob} from '../../src/demo/job.js';
import {allGotSigterm, answer, endJob} from '../helpers/demo-signals.js';
import {runCli} from '../helpers/run-cli.js';

// `traintop signal save --help --pid P` once signalled P: meow's autoHelp stops only a command line that is `--help`
// alone. Against a real demo job (a launcher and 2 ranks, no periodic saves), every help form of signal sends
// nothing: no rank saves a checkpoint (rank 0 writes one on SIGUSR1), and the one SIGUSR1 each rank has seen when
// the job ends is the one a plain `signal save` sent afterwards.

let dir: string;
let job: DemoJob | null = null;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-help-signal-'));
	job = await startDemoJob({runDir: dir, ranks: 2, workers: 1, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 3});
	await job.ranksReady();
});
afterEach(async () => {
	await job?.stop();
	job = null;
	await rm(dir, {recursive: true, force: true});
});

test('signal save|emergency with --help or -h anywhere, and help signal, send no signal', async () => {
	const pid = String(job!.launcherPid);
	const target = ['--pid', pid, '--yes', '--nvidia-smi', '/nonexistent'];
	const help = (await runCli(['help', 'signal'])).stdout;
	expect(help).toMatch(/^traintop signal — /);
	for (const args of [
		['signal', 'save', '--help', ...target],
		['signal', 'save', ...target, '-h'],
		['signal', '-h', 'save', ...target],
		['signal', 'emergency', '--help', ...target],
		['signal', 'SIGUSR2', ...target, '--force', '-h'],
		['help', 'signal', 'save', ...target],
	]) {
		const {code, stdout, stderr} = await runCli(args);
		expect({code, stderr}, args.join(' ')).toEqual({code: 0, stderr: ''});
		expect(stdout).toBe(help);
	}
	// Rank 0 saves a checkpoint on SIGUSR1: none was written.
	expect(existsSync(path.join(dir, 'checkpoints'))).toBe(false);

	// The same line without --help does send: each rank gets the SIGUSR1 and rank 0 saves.
	const sent = await runCli(['signal', 'save', ...target]);
	expect(sent.code).toBe(0);
	expect(await answer(job!, 0, 'SIGUSR1')).toBe('rank 0 got SIGUSR1');
	expect(await answer(job!, 1, 'SIGUSR1')).toBe('rank 1 got SIGUSR1');
	await job!.waitForLine(/rank 0 step \d+ saved checkpoint_step_\d+_\d+_\d+ \(manual\)/, 10_000);
	// A later event: both ranks handle the SIGTERM that ends the job (a SIGTERM or SIGUSR2 sent before would have
	// ended them or shown first), and each got SIGUSR1 exactly once, from the plain `signal save`.
	expect(await endJob(job!, 2)).toEqual(allGotSigterm(2));
	for (const rank of [0, 1]) {
		const got = job!
			.output()
			.split('\n')
			.filter(line => line === `rank ${rank} got SIGUSR1`);
		expect(got, `rank ${rank}`).toHaveLength(1);
	}
	expect(job!.output()).not.toMatch(/got SIGUSR2|killed by SIGUSR2/);
});

import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {startDemoJob, type DemoJob} from '../../src/demo/job.js';
import {allGotSigterm, endJob} from '../helpers/demo-signals.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {Terminal} from '../helpers/tmux.js';

// The confirmation prompt on a real terminal: the built CLI inside tmux, read with capture-pane.

let term: Terminal | null = null;
const until = (predicate: (text: string) => boolean) => term!.until(predicate, 'the screen to match', 10_000);

let dir: string;
let job: DemoJob | null = null;
beforeEach(async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-tty-'));
	job = await startDemoJob({runDir: dir, ranks: 2, workers: 1, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 3});
	await job.ranksReady();
});
afterEach(async () => {
	term?.close();
	term = null;
	await job?.stop();
	await rm(dir, {recursive: true, force: true});
});

function openSignalPrompt(): void {
	const command = `${process.execPath} ${CLI} signal save --pid ${job!.launcherPid} --nvidia-smi /nonexistent; echo EXIT=$?; sleep 30`;
	term = new Terminal(120, 20, command);
}

test('on a terminal it lists the targets and asks; Enter alone cancels and nothing is sent', async () => {
	openSignalPrompt();
	const prompt = await until(text => /Send SIGUSR1 to job launcher\.py:\d+\? \[y\/N\]/.test(text));
	expect(prompt).toMatch(
		/SIGUSR1 \(save\) to 2 of 2 ranks of job launcher\.py:\d+ \(the only job found with --pid \d+\):/,
	);
	expect(prompt).toMatch(/rank 0 {2}pid \d+ {2}handles SIGUSR1/);
	term!.keys('Enter');
	const after = await until(text => text.includes('EXIT='));
	expect(after).toContain('cancelled: nothing sent');
	expect(after).toContain('EXIT=3');
	// Both ranks answer a later signal, the SIGTERM that ends the job: a SIGUSR1 sent before would show first.
	expect(await endJob(job!, 2)).toEqual(allGotSigterm(2));
	expect(job!.output()).not.toContain('got SIGUSR1');
});

test('answering y sends it, and rank 0 saves', async () => {
	openSignalPrompt();
	await until(text => /Send SIGUSR1 to job launcher\.py:\d+\? \[y\/N\]/.test(text));
	term!.keys('y', 'Enter');
	const after = await until(text => text.includes('EXIT='));
	expect(after).toMatch(/rank 0 {2}pid \d+ {2}sent/);
	expect(after).toMatch(/rank 1 {2}pid \d+ {2}sent/);
	expect(after).toContain('EXIT=0');
	await job!.waitForLine(/rank 0 step \d+ saved checkpoint_step_\d+_\d+_\d+ \(manual\)/, 10_000);
});

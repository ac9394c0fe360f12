import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {type DemoJob, startDemoJob} from '../../src/demo/job.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {Terminal} from '../helpers/tmux.js';

// One marked rank of a torchrun-shaped job (the demo job: its ranks carry TORCHELASTIC_RUN_ID, as an elastic
// agent's do) and `e`: the rank would save and exit, and the elastic agent stops every other rank when one fails.
// The confirm box says so, with Cancel still the default. The built traintop in tmux, 200×50 (the line fits whole).

let term: Terminal;
let dir: string;
let job: DemoJob | null = null;
let pids: number[] = [];
beforeEach(async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-partial-'));
	job = await startDemoJob({runDir: dir, ranks: 2, workers: 0, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 3});
	pids = [...(await job.ranksReady()).values()];
	term = new Terminal(200, 50);
});
afterEach(async () => {
	term?.close();
	await job?.stop();
	await rm(dir, {recursive: true, force: true});
});

test('e on one marked rank of a torchrun job: the box says it ends every rank; Cancel is the default', async () => {
	term.keys(
		`${process.execPath} ${CLI} ${dir} --pid ${job!.launcherPid} --nvidia-smi /nonexistent --interval 0.5; echo "EXIT=$?"`,
		'Enter',
	);
	await term.until(text => /RANKS 2/.test(text) && /CHECKPOINTS/.test(text) && /^› +0 /m.test(text));
	term.keys('Space');
	await term.until(text => /target: (?!all)/.test(text));
	term.keys('e');
	const box = await term.until(text => /Send SIGTERM \(emergency checkpoint\) to job launcher\.py:\d+\?/.test(text));
	expect(box).toMatch(/1 marked rank of 2/);
	expect(box).toContain(
		'ENDS THE WHOLE JOB: the 1 chosen rank exits, and its elastic agent (launcher.py, as torchrun) stops every rank when one fails: every one of its 2 ranks ends, not only the 1 chosen',
	);
	expect(box).toMatch(/▸ Cancel/);
	// Enter presses the highlighted button: Cancel. Nothing is sent.
	term.keys('Enter');
	await term.until(text => !text.includes('Send SIGTERM'));
	term.keys('q');
	expect(await term.until(text => /^EXIT=\d+/m.test(text))).toContain('EXIT=0');
	expect(job!.exitSignal()).toBeNull();
	// Both ranks still run: nothing was sent (kill -0 throws for a process that is gone).
	for (const pid of pids) expect(() => process.kill(pid, 0)).not.toThrow();
}, 60_000);

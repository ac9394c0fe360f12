import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, test} from 'vitest';
import {type DdpJob, startDdpJob} from '../helpers/ddp-job.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {Terminal} from '../helpers/tmux.js';

// The readiness line and the drill key in the real TUI (tmux) on a real DDP job (test/fixtures/jobs/ddp_plain.py under
// torchrun) whose saves write over 2 s: the ranks pane says READY with the figures, and `d` sends the save signal
// through the same confirm box as `s`, times its checkpoint and says the verdict with it.

let job: DdpJob | null = null;
let term: Terminal | null = null;
let dir = '';
afterEach(async () => {
	term?.close();
	await job?.stop();
	if (dir) await rm(dir, {recursive: true, force: true});
});

test('the TUI: the readiness line under the job, and the drill key (d) timing a save and saying the verdict', async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-ready-tui-'));
	// Periodic saves far apart: the drill's save is the one the signal asked for.
	job = startDdpJob(dir, {saveEvery: 100_000, stepSeconds: 0.05, saveSeconds: 2});
	await job.ranks();
	term = new Terminal(220, 45);
	const args = [dir, '--pid', String(job.launcherPid), '--nvidia-smi', '/nonexistent', '--no-log', '--grace', '30'];
	term.keys(`${process.execPath} ${CLI} ${args.join(' ')} --interval 0.5; echo "EXIT=$?"`, 'Enter');
	// No save yet: the verdict waits for one, and says so.
	await term.until(
		s => /if preempted: UNKNOWN — no complete save seen yet; every rank handles SIGTERM \(2\)/.test(s),
		'the unknown line',
		120_000,
	);

	term.keys('d');
	await term.until(s => /Drill: Send SIGUSR1 \(save\) to job .*, and time its save\?/.test(s), 'the drill box');
	term.keys('Right', 'Enter');
	const done = await term.until(
		s =>
			/drill ready: ckpt_step\d+\.pt complete [\d.]+ s after the signal, written in [\d.]+ s; --grace gives 30\.0 s/.test(
				s,
			),
		'the drill answered with the verdict',
		90_000,
	);
	const name = /drill ready: (ckpt_step\d+\.pt) complete/.exec(done)?.[1];
	const logged = job.saves().find(save => save.name === name);
	expect(logged?.reason).toBe('signal');
	const shown = Number(/written in ([\d.]+) s/.exec(done)?.[1]);
	expect(Math.abs(shown - (logged?.writeS ?? 0))).toBeLessThan(1);
	// The ranks pane's line now has the save's figures.
	term.keys('Escape');
	await term.until(
		s =>
			/if preempted: READY — every rank handles SIGTERM \(2\); saves take 2(\.\d)? s \(2(\.\d)? s at most, 1 save\); --grace gives 30 s/.test(
				s,
			),
		'the ready line',
	);
	term.keys('q');
	await term.until(s => /^EXIT=0/m.test(s), 'the TUI to quit');
}, 240_000);

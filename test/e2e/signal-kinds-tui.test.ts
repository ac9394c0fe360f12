import {mkdirSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {CLI, requireBuild} from '../helpers/dist.js';
import {type SaveJob, startSaveJob} from '../helpers/signal-save-job.js';
import {Terminal} from '../helpers/tmux.js';

// `e` in the TUI on a job whose emergency save is a file named by its step (ckpt_step<N>.pt, no record of why) on a
// 300-step cadence: the save that lands right after traintop's SIGTERM is the emergency checkpoint, and the pane says
// it was seen. The built traintop in tmux, a real job (signal-save-job.py), a real signal.

let term: Terminal | null = null;
let scratch = '';
let job: SaveJob | null = null;
beforeEach(() => {
	requireBuild();
	scratch = mkdtempSync(path.join(tmpdir(), 'traintop-kinds-tui-'));
});
afterEach(async () => {
	term?.close();
	term = null;
	await job?.stop();
	job = null;
	rmSync(scratch, {recursive: true, force: true});
});

test('e on a job: its save right after SIGTERM is reported as the emergency checkpoint', async () => {
	const runDir = path.join(scratch, 'run');
	mkdirSync(runDir);
	job = await startSaveJob({scratch, runDir, layout: 'generic', onSignal: 'step-name', periodic: 300});
	await job.saved(0);
	term = new Terminal(200, 50);
	const pid = job.launcher.child.pid;
	term.keys(`${process.execPath} ${CLI} ${runDir} --pid ${pid} --nvidia-smi /nonexistent --interval 0.5`, 'Enter');
	await term.until(text => /RANKS 1/.test(text) && /ckpt_step300\.pt/.test(text), 'the job and its first save', 30_000);
	term.keys('e');
	await term.until(text => /Send SIGTERM \(emergency checkpoint\) to job /.test(text), 'the confirm box', 30_000);
	term.keys('Right', 'Enter');
	const screen = await term.until(
		text => /saved ckpt_step\d+\.pt in [\d.]+ s/.test(text),
		'the emergency checkpoint reported',
		30_000,
	);
	expect(await job.rank.exited).toEqual({code: 99, signal: null});
	// Its last save, the one SIGTERM asked for.
	const name = job.rank.lines
		.filter(line => line.startsWith('saved '))
		.at(-1)
		?.slice('saved '.length);
	expect(screen).toContain(`saved ${name} in `);
	expect(screen).not.toContain('no emergency checkpoint seen');
}, 120_000);

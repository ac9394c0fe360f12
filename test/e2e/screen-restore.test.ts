import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {type DemoJob, startDemoJob} from '../../src/demo/job.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {Terminal} from '../helpers/tmux.js';

// The shell's screen after traintop, when the terminal was resized under it: grown far past where it started (after
// a shrink below the smallest screen traintop draws, the "too small" line, or not), then q. The shell must get back
// exactly the lines it had, where it had them, and nothing of the TUI's frame. tmux reflows the alternate screen to
// the size the shell's screen was saved at before giving that back: the frame's rows wider than it were split and
// the surplus pulled in above the shell's lines, unless the alternate screen is left empty.

let term: Terminal;
const keys = (...k: string[]) => term.keys(...k);
let dir: string;
let job: DemoJob | null = null;

/** The screen's lines, their trailing blanks off, without the empty lines after the last written one. */
const linesOf = (screen: string): string[] => {
	const lines = screen.split('\n').map(line => line.trimEnd());
	while (lines.length > 0 && lines.at(-1) === '') lines.pop();
	return lines;
};

/** Anything only traintop's frame draws: pane headings, chart axes, box borders, the too-small line. */
const TUI_LINE = /^(MEMORY|RAM|HISTORY|RANKS|CHECKPOINTS|ALERTS|q quit)\b|[│┤└╭╮╰╯┄]|too small/;

beforeEach(async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-e2e-restore-'));
	job = await startDemoJob({runDir: dir, ranks: 2, workers: 1, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 3});
	await job.ranksReady();
	term = new Terminal(120, 40);
	keys(`PS1='$ '; for i in $(seq 1 30); do echo shell-line-$i; done`, 'Enter');
	await term.until(text => /^shell-line-30$/m.test(text) && /^\$ ?$/m.test(text), 'the shell lines and a prompt');
});
afterEach(async () => {
	term.close();
	await job?.stop();
	await rm(dir, {recursive: true, force: true});
});

test.each([
	['shrunk below 60×15 (too small), grown to 200×60', true],
	['grown to 200×60', false],
])('%s, q: the shell has its lines back and none of the TUI', async (_, shrinkFirst) => {
	const before = linesOf(term.screen());
	keys(`${process.execPath} ${CLI} ${dir} --pid ${job!.launcherPid} --nvidia-smi /nonexistent --interval 0.5`, 'Enter');
	// The charts drawn: their axes are the lines that stayed in the shell.
	await term.until(text => /^RANKS 2/m.test(text) && /┤/.test(text), 'the TUI with its charts');
	if (shrinkFirst) {
		term.tmux('resize-window', '-t', 'term', '-x', '59', '-y', '14');
		await term.until(text => text.startsWith('terminal 59×14 is too small'), 'the too-small line');
	}
	term.tmux('resize-window', '-t', 'term', '-x', '200', '-y', '60');
	await term.until(
		text => text.startsWith('MEMORY') && /^RANKS 2/m.test(text) && /┤/.test(text),
		'the full frame at 200×60',
	);
	keys('q');
	const after = linesOf(await term.until(text => /^\$ ?$/m.test(text.split('\n').slice(-30).join('\n')), 'the prompt'));
	const tuiLines = after.filter(line => TUI_LINE.test(line));
	expect(tuiLines, after.join('\n')).toEqual([]);
	// The shell's own lines, from its first one, where they were; the last (the prompt) now holds the command.
	expect(after.slice(0, before.length - 1), after.join('\n')).toEqual(before.slice(0, -1));
	expect(after[before.length - 1]).toContain(`${CLI} ${dir}`);
});

import {describe, expect, it} from 'vitest';
import {CLI} from '../helpers/dist.js';
import {ownedByTest} from '../helpers/owned-by-test.js';
import {Terminal} from '../helpers/tmux.js';
import {until} from '../helpers/until.js';

// --bell in the real TUI, as tmux sees it: its window's bell flag (what a status line shows as `!`, and what
// `bell-action` acts on). Two windows of one detached session: the TUI without --bell, then one with it, both with RAM
// CRIT from the start (a 0.1 % threshold). Only the second window's flag goes up: the bell is --bell's, not Ink's.

const owned = ownedByTest();
const FLAGS = '--ram-threshold 0.1 --no-log --nvidia-smi /nonexistent --interval 0.5';

describe('--bell', () => {
	it("rings the terminal's bell on CRIT in the TUI; without it, no bell", async () => {
		const t = owned.term(new Terminal(120, 40));
		t.tmux('new-window', '-d', '-t', 'term:1');
		const bellFlag = (window: number) =>
			t.tmux('display-message', '-p', '-t', `term:${window}`, '#{window_bell_flag}').trim();
		const screen = (window: number) => t.tmux('capture-pane', '-p', '-t', `term:${window}`);
		const type = (window: number, line: string) => t.tmux('send-keys', '-t', `term:${window}`, line, 'Enter');

		type(1, `PS1='$ '; ${process.execPath} ${CLI} ${FLAGS}`);
		// CRIT on its screen (the memory pane's level), then a later frame: a bell would have rung by now.
		const crit = (text: string) => /CRIT/.test(text);
		const first = await until(() => screen(1), crit, 'RAM CRIT on the screen without --bell', 30_000);
		await until(
			() => screen(1),
			text => crit(text) && text !== first,
			'a later frame',
			30_000,
		);
		expect(bellFlag(1)).toBe('0');

		type(0, `PS1='$ '; ${process.execPath} ${CLI} ${FLAGS} --bell`);
		await until(
			() => bellFlag(0),
			flag => flag === '1',
			'the bell of the window with --bell',
			30_000,
		);
		await until(() => screen(0), crit, 'RAM CRIT on the screen with --bell', 30_000);
		expect(bellFlag(1)).toBe('0');
	}, 90_000);
});

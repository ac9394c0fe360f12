import {readFileSync} from 'node:fs';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {endDemoRun, processesWith} from '../helpers/demo-run.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {Terminal, wholeFrame} from '../helpers/tmux.js';
import {until} from '../helpers/until.js';

// The TUI beside the demo job in a real 120×40 terminal, as a new user meets it: the screen used to
// its last row (the history charts take what the lists leave), Enter showing the rank under the
// cursor whole, q in a box closing only the box, w changing the charts' window, and a save marked
// on the charts' time axis.

let term: Terminal;
const screen = () => term.screen();
const keys = (...k: string[]) => term.keys(...k);
let runDir = '';

beforeEach(async () => {
	requireBuild();
	term = new Terminal(120, 40);
	keys(`PS1='$ '; ${process.execPath} ${CLI} demo --nvidia-smi /nonexistent; echo "EXIT=$?"`, 'Enter');
	const first = await until(screen, s => /RANKS 4/.test(s) && /^HISTORY /m.test(s), 'the demo TUI with its charts');
	runDir = /run dir (\/tmp\/traintop-demo-\S+)/.exec(first)?.[1] ?? '';
	expect(runDir).toMatch(/traintop-demo-/);
});

afterEach(async () => {
	term.close();
	await endDemoRun(runDir);
});

test('120×40 beside the demo: at least 36 of the 39 rows used; Enter shows the whole command line; q in help closes help', async () => {
	const main = await until(screen, s => /^ +0%┤/m.test(s), 'the RAM chart drawn');
	const rows = main.split('\n').slice(0, 39);
	const used = rows.filter(line => line.trim() !== '').length;
	expect(used, main).toBeGreaterThanOrEqual(36);
	expect(rows.at(-1)).toMatch(/^q quit/);

	// The rank under the cursor (the first row): its full command line in the detail box.
	const pid = Number(/^› +0 +(\d+) /m.exec(main)?.[1]);
	const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
	expect(argv.length).toBeGreaterThan(5);
	keys('Enter');
	const detail = await until(
		screen,
		s => new RegExp(`rank 0 · pid ${pid} · job`).test(s) && /command /.test(s),
		'the detail',
	);
	for (const arg of argv) expect(detail).toContain(arg);
	// Further down: its RSS and CPU over time, and its GPU memory per device (none here: no GPU).
	keys('PageDown');
	await until(screen, s => /│ History/.test(s) && /│ GPU memory/.test(s), 'the history and GPU sections');
	keys('Escape');
	await until(screen, s => !/│ command /.test(s) && /^› +0 /m.test(s), 'back to the ranks');

	keys('?');
	await until(screen, s => /Ctrl-Z/.test(s) && /suspend/.test(s), 'help');
	keys('q');
	const back = await until(screen, s => !/suspend to the shell/.test(s) && /^RANKS 4/m.test(s), 'help closed');
	// Still running: q in a box closed the box, not traintop (and not the demo job).
	expect(back).not.toMatch(/EXIT=/);
	expect(processesWith(runDir).length).toBeGreaterThanOrEqual(5);

	keys('w');
	await until(screen, s => /^HISTORY last hour/m.test(s), 'the hour window');
	keys('w');
	await until(screen, s => /^HISTORY whole run/m.test(s), 'the whole run');
});

test('a save is marked on the charts’ time axis, and the checkpoints pane stays in sight beside the result box', async () => {
	keys('s');
	await until(screen, s => /Send SIGUSR1 \(save\) to job launcher\.py:\d+\?/.test(s), 'the confirm box');
	keys('Right', 'Enter');
	const result = await until(
		screen,
		s => /SIGUSR1 \(save\) to job launcher\.py:\d+: sent 3, refused 1/.test(s) && wholeFrame(s),
		'the result, the whole frame',
	);
	expect(result).toMatch(/^CHECKPOINTS /m);
	keys('Escape');
	const marked = await until(
		screen,
		s => /^ {4}└─*▲/m.test(s) && wholeFrame(s),
		'the save marked on the time axis, the whole frame',
	);
	expect(marked).toMatch(/^CHECKPOINTS [1-9]/m);
});

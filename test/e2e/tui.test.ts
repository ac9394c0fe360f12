import {execFileSync} from 'node:child_process';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {startDemoJob, type DemoJob} from '../../src/demo/job.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {Terminal, wholeFrame} from '../helpers/tmux.js';

// The built traintop in a real terminal (tmux), beside the demo job: the screen read with
// capture-pane, keys typed with send-keys, the shell's screen checked after traintop is gone.

let term: Terminal;
const keys = (...k: string[]) => term.keys(...k);
const until = (predicate: (text: string) => boolean) => term.until(predicate);

let dir: string;
let job: DemoJob | null = null;
beforeEach(async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-e2e-'));
	job = await startDemoJob({
		runDir: dir,
		ranks: 2,
		workers: 1,
		stepSeconds: 0.05,
		saveEvery: 0,
		noUsr1Ranks: [1],
		shutdownTimeoutS: 3,
	});
	await job.ranksReady();
	// A plain shell, so the test sees what the user's terminal shows before and after traintop.
	term = new Terminal(120, 40);
	keys(`PS1='$ '; echo shell-before-traintop`, 'Enter');
	await until(text => text.includes('shell-before-traintop'));
});
afterEach(async () => {
	term.close();
	await job?.stop();
	await rm(dir, {recursive: true, force: true});
});

function startTraintop(): void {
	keys(
		`${process.execPath} ${CLI} ${dir} --pid ${job!.launcherPid} --nvidia-smi /nonexistent --interval 0.5; echo "EXIT=$?"`,
		'Enter',
	);
}

test('s, confirm, the new checkpoint on screen; q leaves with exit 0 and the shell screen back', async () => {
	startTraintop();
	const main = await until(text => /RANKS 2/.test(text) && /CHECKPOINTS/.test(text));
	// The alternate screen: the shell's lines are out of sight while traintop runs.
	expect(main).not.toContain('shell-before-traintop');
	expect(main).toMatch(/USR1✓/);
	expect(main).toMatch(/USR1✗/);
	expect(main).toMatch(/GPU +not monitored: \/nonexistent not found/);
	expect(main.trimEnd().split('\n').length).toBeLessThanOrEqual(39);

	keys('s');
	// The box names the one job the signal goes to, and says the save is watched in its run dir.
	const box = await until(text => /Send SIGUSR1 \(save\) to job launcher\.py:\d+\?/.test(text) && wholeFrame(text));
	expect(box).toMatch(/all 2 ranks · run dir /);
	expect(box).toMatch(/rank 1 {2}pid \d+ {2}NO HANDLER/);
	expect(box).toMatch(/▸ Cancel/);
	keys('Right', 'Enter');
	const result = await until(
		text => /SIGUSR1 \(save\) to job launcher\.py:\d+: sent 1, refused 1/.test(text) && wholeFrame(text),
	);
	expect(result).toMatch(/rank 0 {2}pid \d+ {2}sent/);
	// The result box floats over the panes: the checkpoints pane below it stays in sight and reports the save.
	expect(result).toMatch(/^CHECKPOINTS /m);
	const both = await until(
		text => /sent 1, refused 1/.test(text) && /saved checkpoint_step_\d+_\d+_\d+ in /.test(text),
	);
	expect(both).toMatch(/^CHECKPOINTS /m);
	expect(both).toMatch(/^» saved checkpoint_step_/m);
	keys('Escape');
	await until(text => /saved checkpoint_step_\d+_\d+_\d+ in [\d.]+ s/.test(text));
	// The timeline has it too (its snapshot may come a tick after the watcher saw the save).
	await until(text => /step +\d+ .*manual/.test(text));
	await job!.waitForLine(/rank 0 step \d+ saved checkpoint_step_\d+_\d+_\d+ \(manual\)/, 10_000);

	keys('q');
	const after = await until(text => /^EXIT=\d+/m.test(text));
	expect(after).toContain('EXIT=0');
	expect(after).toContain('shell-before-traintop');
	expect(after).not.toMatch(/RANKS 2|CHECKPOINTS/);
	// The job is untouched by quitting.
	expect(job!.exitSignal()).toBeNull();
});

test('SIGTERM to traintop also restores the screen, exit 0; --readonly shows no save key', async () => {
	keys(
		`${process.execPath} ${CLI} ${dir} --pid ${job!.launcherPid} --nvidia-smi /nonexistent --readonly; echo "EXIT=$?"`,
		'Enter',
	);
	const main = await until(text => /RANKS 2/.test(text));
	expect(main).toContain('READ-ONLY');
	expect(main).not.toMatch(/s save/);
	// A later key with a visible effect: Down moves the cursor to rank 1. Keys are handled in order (and 's' stays a
	// key press of its own before an escape sequence), so once the cursor has moved, 's' has been handled; had it
	// opened the confirm box, Down would do nothing there and the box would be on screen.
	keys('s', 'Down');
	const later = await until(text => /^› +1 /m.test(text) || text.includes('Send SIG'));
	expect(later).not.toContain('Send SIG');
	expect(later).toMatch(/^› +1 /m);

	// traintop is the one child of the pane's shell (meow renames the process to "traintop").
	const pids = execFileSync('pgrep', ['-P', String(term.panePid())], {encoding: 'utf8'})
		.trim()
		.split('\n')
		.map(Number);
	expect(pids).toHaveLength(1);
	const pid = pids[0]!;
	expect(execFileSync('ps', ['-o', 'args=', '-p', String(pid)], {encoding: 'utf8'}).trim()).toBe('traintop');
	process.kill(pid, 'SIGTERM');
	const after = await until(text => /^EXIT=\d+/m.test(text));
	expect(after).toContain('EXIT=0');
	expect(after).toContain('shell-before-traintop');
	expect(after).not.toMatch(/RANKS 2/);
});

test('a crash inside the TUI still gives the shell its screen back, and the error is printed after', async () => {
	const script = path.join(path.dirname(CLI), '..', 'test/e2e/fixtures/crashing-tui.mjs');
	keys(`${process.execPath} ${script}; echo "EXIT=$?"`, 'Enter');
	const after = await until(text => /^EXIT=\d+/m.test(text));
	expect(after).toContain('crashed: boom: a bug in a pane');
	expect(after).toContain('EXIT=1');
	expect(after).toContain('shell-before-traintop');
	// The alternate screen was left: nothing of the TUI's frame is on the shell's screen.
	expect(after).not.toMatch(/MEMORY|first sample/);
});

test('narrowing the terminal redraws cleanly (no pieces of the wider frame left), too small says so, and back', async () => {
	startTraintop();
	await until(text => /RANKS 2/.test(text) && /CHECKPOINTS/.test(text));
	term.tmux('resize-window', '-t', 'term', '-x', '70', '-y', '18');
	const narrow = await until(text => /RANKS 2/.test(text) && text.split('\n')[0]!.startsWith('MEMORY'));
	const lines = narrow.trimEnd().split('\n');
	expect(lines.filter(l => l.startsWith('RANKS')).length).toBe(1);
	expect(lines.filter(l => l.startsWith('MEMORY')).length).toBe(1);
	expect(lines.length).toBeLessThanOrEqual(17);
	for (const line of lines) expect([...line].length).toBeLessThanOrEqual(70);
	term.tmux('resize-window', '-t', 'term', '-x', '50', '-y', '12');
	await until(text => text.startsWith('terminal 50×12 is too small'));
	term.tmux('resize-window', '-t', 'term', '-x', '100', '-y', '30');
	const back = await until(text => text.split('\n')[0]!.startsWith('MEMORY') && /RANKS 2/.test(text));
	expect(back).not.toContain('too small');
	keys('q');
	expect(await until(text => /^EXIT=\d+/m.test(text))).toContain('EXIT=0');
});

test('a memory log that cannot be written (a full disk: /dev/full) shows on the key bar; monitoring goes on', async () => {
	keys(
		`${process.execPath} ${CLI} ${dir} --pid ${job!.launcherPid} --nvidia-smi /nonexistent --interval 0.5 --log-interval 1 --log-file /dev/full; echo "EXIT=$?"`,
		'Enter',
	);
	const screenWithTrouble = await until(text => /LOG cannot append to \/dev\/full: .*ENOSPC/.test(text));
	expect(screenWithTrouble).toMatch(/RANKS 2/);
	keys('q');
	const after = await until(text => /^EXIT=\d+/m.test(text));
	expect(after).toContain('EXIT=0');
	expect(after).toMatch(/traintop: cannot append to \/dev\/full/);
});

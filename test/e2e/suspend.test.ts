import {execFileSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {type DemoJob, startDemoJob} from '../../src/demo/job.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {Terminal} from '../helpers/tmux.js';
import {until as untilValue} from '../helpers/until.js';

// Ctrl-Z and `fg` in a real terminal (tmux) with an interactive bash, as a user does it: the shell gets its
// screen and a working prompt while traintop is stopped, and `fg` brings the whole frame back with the keys
// working. Sampling and rank scans are slow here (30 s), so what is on screen after `fg` is the forced repaint, not a new
// sample's frame. The demo job is this test's child (its own process group): Ctrl-Z does not stop it.

let term: Terminal;
const keys = (...k: string[]) => term.keys(...k);
const until = (predicate: (text: string) => boolean, what?: string) => term.until(predicate, what);

let dir: string;
let job: DemoJob | null = null;
beforeEach(async () => {
	requireBuild();
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-suspend-'));
	job = await startDemoJob({runDir: dir, ranks: 2, workers: 1, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 3});
	await job.ranksReady();
	term = new Terminal(120, 40);
	keys(`PS1='$ '; echo shell-before-traintop`, 'Enter');
	await until(text => text.includes('shell-before-traintop'));
});
afterEach(async () => {
	term.close();
	await job?.stop();
	await rm(dir, {recursive: true, force: true});
});

/** The main screen, whole: its first pane's title on the first line, the ranks, the key bar. */
const wholeFrame = (text: string): boolean =>
	text.startsWith('MEMORY') &&
	/^RANKS 2 /m.test(text) &&
	/^CHECKPOINTS /m.test(text) &&
	/^q quit {2}s save/m.test(text);
/** bash's report of its stopped job, then its prompt on the last line. */
const shellWithStoppedJob = (text: string): boolean =>
	/^\[1\]\+ +Stopped/m.test(text) && text.trimEnd().split('\n').at(-1) === '$';

/** Starts traintop in the shell; its pid once its screen is up (it is the shell's one child). */
async function startTraintop(): Promise<number> {
	keys(
		`${process.execPath} ${CLI} ${dir} --pid ${job!.launcherPid} --nvidia-smi /nonexistent --interval 30 --ranks-interval 30`,
		'Enter',
	);
	await until(wholeFrame, 'the main screen');
	const pids = execFileSync('pgrep', ['-P', String(term.panePid())], {encoding: 'utf8'})
		.trim()
		.split('\n');
	expect(pids).toHaveLength(1);
	return Number(pids[0]);
}

/** The process state letter of /proc/PID/stat (R, S, T…). */
const stateOf = (pid: number): string => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)!.split(' ')[0]!;
const untilState = (pid: number, ok: (state: string) => boolean, what: string) =>
	untilValue(() => stateOf(pid), ok, what);

/** `fg`: the whole frame again, nothing of the shell's lines left; then ? opens help and q quits with exit 0. */
async function resumeAndQuit(pid: number): Promise<void> {
	keys('fg', 'Enter');
	const back = await until(text => wholeFrame(text) && !text.includes('Stopped'), 'the whole frame after fg');
	expect(back).not.toContain('shell-before-traintop');
	expect(back).not.toMatch(/^\$/m);
	await untilState(pid, state => state !== 'T', 'traintop running again');
	// The keys work again: raw mode is back (in cooked mode `?` would wait for Enter).
	keys('?');
	const help = await until(text => text.includes('traintop keys'), 'the help box');
	expect(help).toMatch(/Ctrl-Z +suspend to the shell \(fg brings traintop back\)/);
	keys('Escape');
	await until(text => wholeFrame(text) && !text.includes('traintop keys'), 'the help box closed');
	keys('q');
	await until(text => text.includes('shell-before-traintop') && text.trimEnd().endsWith('$'), 'the shell after q');
	keys('echo "EXIT=$?"', 'Enter');
	expect(await until(text => /^EXIT=\d+/m.test(text), 'the exit status')).toContain('EXIT=0');
	// The job is untouched by all of it.
	expect(job!.exitSignal()).toBeNull();
}

test('Ctrl-Z: the shell with its screen and the job stopped (T); fg: the whole frame back, keys working', async () => {
	const pid = await startTraintop();
	keys('C-z');
	const shell = await until(shellWithStoppedJob, "bash's Stopped and its prompt");
	// The alternate screen was left: the shell's own lines, nothing of the frame.
	expect(shell).toContain('shell-before-traintop');
	expect(shell).not.toMatch(/^MEMORY|^RANKS/m);
	await untilState(pid, state => state === 'T', 'traintop stopped');
	// The prompt works while traintop is stopped (the terminal is in cooked mode: the line echoes).
	keys('echo shell-while-stopped', 'Enter');
	await until(text => /^shell-while-stopped$/m.test(text), 'a command in the shell');
	await resumeAndQuit(pid);
});

test('kill -TSTP from outside suspends the same way; a SIGSTOP that left the frame up is repainted on fg', async () => {
	const pid = await startTraintop();
	process.kill(pid, 'SIGTSTP');
	const shell = await until(shellWithStoppedJob, "bash's Stopped after kill -TSTP");
	expect(shell).toContain('shell-before-traintop');
	await untilState(pid, state => state === 'T', 'traintop stopped by SIGTSTP');
	keys('fg', 'Enter');
	await until(text => wholeFrame(text) && !text.includes('Stopped'), 'the whole frame after fg');
	await untilState(pid, state => state !== 'T', 'traintop running again');

	// SIGSTOP cannot be caught: the frame stays, bash writes over it; SIGCONT (fg) has it all drawn again.
	process.kill(pid, 'SIGSTOP');
	await until(text => /Stopped/.test(text) && text.trimEnd().endsWith('$'), "bash's Stopped over the frame");
	await untilState(pid, state => state === 'T', 'traintop stopped by SIGSTOP');
	await resumeAndQuit(pid);
});

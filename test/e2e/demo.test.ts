import {execFileSync} from 'node:child_process';
import {existsSync, readFileSync} from 'node:fs';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {endDemoRun, processesWith} from '../helpers/demo-run.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {Terminal} from '../helpers/tmux.js';
import {until} from '../helpers/until.js';

// `traintop demo` in a real terminal: one command gives the TUI on a running job, and however it
// ends — q, Ctrl-C, the terminal closed under it — no process of the demo job is left behind.

let term: Terminal;
const screen = () => term.screen();
const keys = (...k: string[]) => term.keys(...k);

const children = (pid: number): number[] => {
	try {
		return execFileSync('pgrep', ['-P', String(pid)], {encoding: 'utf8'})
			.trim()
			.split('\n')
			.map(Number);
	} catch {
		return [];
	}
};
let runDir = '';
beforeEach(async () => {
	requireBuild();
	term = new Terminal(120, 40);
	keys(`PS1='$ '; ${process.execPath} ${CLI} demo --nvidia-smi /nonexistent; echo "EXIT=$?"`, 'Enter');
	await until(screen, s => /RANKS 4/.test(s) && /USR1✗/.test(s), 'the demo TUI with 4 ranks');
	// The demo's launcher is traintop's child; its command line names the run dir.
	const traintop = children(term.panePid())[0]!;
	const launcher = children(traintop).find(pid => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('launcher.py'));
	expect(launcher).toBeDefined();
	runDir = /--run-dir\0([^\0]+)/.exec(readFileSync(`/proc/${launcher}/cmdline`, 'utf8'))?.[1] ?? '';
	expect(runDir).toMatch(/traintop-demo-/);
	// 4 ranks and their 2 workers each, and the launcher.
	expect(processesWith(runDir).length).toBeGreaterThanOrEqual(5);
});
afterEach(async () => {
	term.close();
	await endDemoRun(runDir);
});

test('q: the job is stopped, the run dir and memory log are named, exit 0, nothing left', async () => {
	keys('q');
	const after = await until(screen, s => /^EXIT=\d+/m.test(s), 'the exit');
	expect(after).toContain('EXIT=0');
	expect(after).toContain(`its run dir (kept): ${runDir}`);
	expect(after).toContain(`memory log ${runDir}/traintop-memory.jsonl`);
	expect(after).toMatch(/stopped the demo job/);
	// Started from the clone, where `traintop` is not on PATH: the command to paste is npx's.
	expect(after).toContain(`look again: npx traintop checkpoints ${runDir}`);
	expect(processesWith(runDir)).toEqual([]);
	expect(existsSync(`${runDir}/traintop-memory.jsonl`)).toBe(true);
});

test('Ctrl-C: the same', async () => {
	keys('C-c');
	const after = await until(screen, s => /^EXIT=\d+/m.test(s), 'the exit');
	expect(after).toContain('EXIT=0');
	expect(processesWith(runDir)).toEqual([]);
});

test('the terminal closed under it (SIGHUP): no demo process is left', async () => {
	term.close();
	const left = await until(
		() => processesWith(runDir),
		pids => pids.length === 0,
		'the demo job stopping',
		15_000,
	);
	expect(left).toEqual([]);
});

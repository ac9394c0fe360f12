import {execFileSync} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import {existsSync, readFileSync} from 'node:fs';
import {rm} from 'node:fs/promises';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {CLI, requireBuild} from '../helpers/dist.js';

// `traintop demo` in a real terminal: one command gives the TUI on a running job, and however it
// ends — q, Ctrl-C, the terminal closed under it — no process of the demo job is left behind.

const socket = `traintop-demo-${randomUUID()}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], {encoding: 'utf8'});
const screen = () => tmux('capture-pane', '-p', '-t', 'demo');
const keys = (...k: string[]) => tmux('send-keys', '-t', 'demo', ...k);
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

async function until<T>(probe: () => T, ok: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = probe();
		if (ok(value)) return value;
		if (Date.now() > deadline) throw new Error(`${what} never happened; last: ${String(value)}`);
		await sleep(100);
	}
}

const children = (pid: number): number[] => {
	try {
		return execFileSync('pgrep', ['-P', String(pid)], {encoding: 'utf8'}).trim().split('\n').map(Number);
	} catch {
		return [];
	}
};
/** PIDs of processes whose command line contains `text`. */
const processesWith = (text: string): number[] => {
	try {
		return execFileSync('pgrep', ['-f', text], {encoding: 'utf8'}).trim().split('\n').map(Number);
	} catch {
		return [];
	}
};

let runDir = '';
beforeEach(async () => {
	requireBuild();
	tmux('new-session', '-d', '-s', 'demo', '-x', '120', '-y', '40', 'env -i PATH="$PATH" HOME="$HOME" TERM=xterm-256color bash --norc --noprofile');
	keys(`PS1='$ '; ${process.execPath} ${CLI} demo --nvidia-smi /nonexistent; echo "EXIT=$?"`, 'Enter');
	await until(screen, s => /RANKS 4/.test(s) && /USR1✗/.test(s), 'the demo TUI with 4 ranks');
	// The demo's launcher is traintop's child; its command line names the run dir.
	const shell = Number(tmux('display-message', '-p', '-t', 'demo', '#{pane_pid}').trim());
	const traintop = children(shell)[0]!;
	const launcher = children(traintop).find(pid => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('launcher.py'));
	expect(launcher).toBeDefined();
	runDir = /--run-dir\0([^\0]+)/.exec(readFileSync(`/proc/${launcher}/cmdline`, 'utf8'))?.[1] ?? '';
	expect(runDir).toMatch(/traintop-demo-/);
	// 4 ranks and their 2 workers each, and the launcher.
	expect(processesWith(runDir).length).toBeGreaterThanOrEqual(5);
});
afterEach(async () => {
	try {
		tmux('kill-server');
	} catch {
		// gone
	}
	for (const pid of processesWith(runDir)) process.kill(pid, 'SIGKILL');
	if (runDir) await rm(runDir, {recursive: true, force: true});
});

test('q: the job is stopped, the run dir and memory log are named, exit 0, nothing left', async () => {
	keys('q');
	const after = await until(screen, s => /^EXIT=\d+/m.test(s), 'the exit');
	expect(after).toContain('EXIT=0');
	expect(after).toContain(`its run dir (kept): ${runDir}`);
	expect(after).toContain(`memory log ${runDir}/traintop-memory.jsonl`);
	expect(after).toMatch(/stopped the demo job/);
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
	tmux('kill-session', '-t', 'demo');
	const left = await until(() => processesWith(runDir), pids => pids.length === 0, 'the demo job stopping', 15_000);
	expect(left).toEqual([]);
});

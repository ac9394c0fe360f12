import {readFileSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {startDemoJob, type DemoJob} from '../../src/demo/job.js';
import {CLI} from '../helpers/dist.js';
import {runCli} from '../helpers/run-cli.js';
import {Terminal} from '../helpers/tmux.js';

// `traintop ranks`' CMD column: cut to the terminal with `…` on a terminal, the whole command line (interpreter path
// and every argument, as /proc/PID/cmdline holds it) with --wide or when stdout is a pipe or a file.

let dir: string;
let job: DemoJob | null = null;
let term: Terminal | null = null;
let ranks: Map<number, number>;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-ranks-wide-'));
	job = await startDemoJob({runDir: dir, ranks: 2, workers: 1, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 3});
	ranks = await job.ranksReady();
});
afterEach(async () => {
	term?.close();
	term = null;
	await job?.stop();
	await rm(dir, {recursive: true, force: true});
});

/** The rank's command line as the kernel has it: argv joined by spaces. */
const wholeCommand = (pid: number): string =>
	readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '').split('\0').join(' ');

/** Each rank's row: the line that starts with its rank number and has its pid. */
const rowOf = (lines: readonly string[], rank: number, pid: number): string | undefined =>
	lines.find(line => new RegExp(`^${rank} +${rank} +${pid} `).test(line));

test('piped (not a terminal): every rank row ends with its whole command line, nothing cut', async () => {
	const {code, stdout} = await runCli(['ranks', '--pid', String(job!.launcherPid), '--nvidia-smi', '/nonexistent']);
	expect(code).toBe(0);
	const lines = stdout.split('\n');
	for (const [rank, pid] of ranks) {
		const whole = wholeCommand(pid);
		// Long enough that a 120-column table would have cut it: the test would see a cut.
		expect(whole.length).toBeGreaterThan(60);
		expect(rowOf(lines, rank, pid)?.endsWith(`  ${whole}`), `rank ${rank}: ${whole}`).toBe(true);
	}
	// The job's line too: its launcher's whole command line.
	expect(lines[1]).toContain(`launcher ${job!.launcherPid} ${wholeCommand(job!.launcherPid)}`);
	expect(stdout).not.toContain('…');
});

/** `traintop ranks ARGS` on an 80-column terminal; the screen with wrapped lines joined (capture-pane -J). */
async function onTerminal(...args: string[]): Promise<string[]> {
	const command = `${process.execPath} ${CLI} ranks --pid ${job!.launcherPid} --nvidia-smi /nonexistent ${args.join(' ')}; echo EXIT=$?; sleep 30`;
	term = new Terminal(80, 60, command);
	await term.until(screen => screen.includes('EXIT='), 'ranks to finish');
	const lines = term.tmux('capture-pane', '-p', '-J', '-t', 'term').split('\n');
	term.close();
	term = null;
	return lines;
}

test('on a terminal rows are cut at its width with …; with --wide the command line is whole', async () => {
	const cut = await onTerminal();
	expect(cut).toContain('EXIT=0');
	for (const [rank, pid] of ranks) {
		const row = rowOf(cut, rank, pid)!;
		expect([...row].length).toBe(80);
		expect(row.endsWith('…')).toBe(true);
	}
	const wide = await onTerminal('--wide');
	expect(wide).toContain('EXIT=0');
	for (const [rank, pid] of ranks) expect(rowOf(wide, rank, pid)?.endsWith(`  ${wholeCommand(pid)}`)).toBe(true);
	expect(wide.join('\n')).not.toContain('…');
});

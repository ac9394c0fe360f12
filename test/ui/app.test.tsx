import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {cleanup, render} from 'ink-testing-library';
import {afterAll, afterEach, beforeAll, describe, expect, test} from 'vitest';
import type {Settings} from '../../src/config/schema.js';
import {startDemoJob, type DemoJob} from '../../src/demo/job.js';
import App from '../../src/ui/app.js';
import {press, untilFrame as until} from '../helpers/ink.js';
import {until as untilValue} from '../helpers/until.js';
import {closeSessions, testSession} from '../helpers/session.js';
import {hostMemory, ScriptedSources} from '../helpers/snapshots.js';

// The whole App on a real job: the demo job's 3 ranks (rank 2 has no SIGUSR1 handler), a real
// session sampling them (the Monitor, the rank sampler, the checkpoint watcher, the actions through
// ranks/send.ts). Keys go in through ink-testing-library's stdin; what the job does is read from
// its own output.

const ENTER = '\r';
const ESC = '\u001B';
const CTRL_C = '\u0003';
const RIGHT = '\u001B[C';
const DOWN = '\u001B[B';

let dir = '';
let job: DemoJob;
const sources = new ScriptedSources();

beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-app-'));
	job = await startDemoJob({
		runDir: dir,
		ranks: 3,
		workers: 1,
		stepSeconds: 0.05,
		saveEvery: 0,
		noUsr1Ranks: [2],
		shutdownTimeoutS: 3,
		// Each rank says each step it took, after the signals it got: the sentinel of settled().
		env: {TRAINTOP_DEMO_HEARTBEAT: '1'},
	});
	await job.ranksReady();
	sources.memory = hostMemory(62, null);
}, 30_000);

afterAll(async () => {
	await job?.stop();
	await rm(dir, {recursive: true, force: true});
});

afterEach(async () => {
	cleanup();
	await closeSessions();
});

async function app(settings: Partial<Settings> = {}) {
	const session = await testSession({
		settings: {timeout: 10, ...settings},
		runDir: dir,
		selector: {kind: 'pid', pid: job.launcherPid},
		sources,
	});
	return {...render(<App session={session} />), session};
}

/** The step each rank last said it took (the demo job's heartbeat lines). */
function lastSteps(): Map<string, number> {
	const steps = new Map<string, number>();
	for (const match of job.output().matchAll(/^rank (\d+) step (\d+)$/gm)) steps.set(match[1]!, Number(match[2]));
	return steps;
}

/**
 * For "nothing was sent": resolves once every effect the app queued before now has run (the
 * analysis box, whose effect queues behind any send, has its answer) and every rank has taken two
 * more steps, so that a signal sent before now has been reported in the job's output by then.
 */
async function settled(stdin: {write(data: string): void}, lastFrame: () => string | undefined): Promise<void> {
	await press(stdin, 'a');
	await until(lastFrame, f => f.includes('No memory log'));
	await press(stdin, ESC);
	// The panes stay drawn around a box: the main screen is back once the box is gone.
	await until(lastFrame, f => f.includes('RANKS 3') && !f.includes('No memory log'));
	const from = lastSteps();
	await untilValue(
		lastSteps,
		now => [...from].every(([rank, step]) => (now.get(rank) ?? 0) >= step + 2),
		'every rank two steps further',
	);
}

/** The job's lines that say a rank got a signal, all of them so far. */
const allGot = (): string[] =>
	job
		.output()
		.split('\n')
		.filter(l => /got SIG/.test(l));
/** How many there are now, to compare with later. */
const outputLength = (): number => allGot().length;
/** Those that came after `from` = outputLength() at some earlier point. */
const gotLines = (from: number): string[] => allGot().slice(from);

describe('the main screen', () => {
	test('memory, the three ranks with their signal marks, checkpoints and the key bar', async () => {
		const {lastFrame} = await app();
		const frame = await until(lastFrame, f => /RANKS 3/.test(f));
		expect(frame).toContain('RAM');
		expect(frame).toContain('62.0%');
		expect(frame).toMatch(/USR1✓/);
		expect(frame).toMatch(/USR1✗/);
		expect(frame).toContain('GPU');
		expect(frame).toMatch(/not monitored: nvidia-smi not found/);
		expect(frame).toMatch(/CHECKPOINTS/);
		expect(frame).toMatch(/q quit\s+s save\s+e emergency/);
	});
});

describe('signals through the confirm box', () => {
	test('s lists every target and what it does with SIGUSR1; Cancel is the default: Enter sends nothing', async () => {
		const {lastFrame, stdin} = await app();
		await until(lastFrame, f => /RANKS 3/.test(f));
		const from = outputLength();
		await press(stdin, 's');
		const box = await until(lastFrame, f => /Send SIGUSR1 \(save\) to job launcher\.py:\d+\?/.test(f));
		expect(box).toContain(`all 3 ranks · run dir ${dir}`);
		expect(box).toMatch(/rank 0 {2}pid \d+ {2}handles SIGUSR1/);
		expect(box).toMatch(/rank 2 {2}pid \d+ {2}NO HANDLER: SIGUSR1 would terminate it/);
		expect(box).toMatch(/▸ Cancel/);
		await press(stdin, ENTER);
		await until(lastFrame, f => f.includes('RANKS 3') && !f.includes('Send SIGUSR1'));
		await settled(stdin, lastFrame);
		expect(gotLines(from)).toEqual([]);
	});

	test('Esc, n and Ctrl-C cancel too (Ctrl-C does not quit from a confirm box)', async () => {
		const {lastFrame, stdin} = await app();
		await until(lastFrame, f => /RANKS 3/.test(f));
		const from = outputLength();
		for (const cancel of [ESC, 'n', CTRL_C]) {
			await press(stdin, 'e');
			await until(lastFrame, f => /Send SIGTERM \(emergency checkpoint\) to job \S+\?/.test(f));
			await press(stdin, cancel);
			await until(lastFrame, f => f.includes('RANKS 3') && !f.includes('Send SIGTERM'));
		}
		await settled(stdin, lastFrame);
		expect(gotLines(from)).toEqual([]);
	});

	test("→ then Enter sends: each rank's outcome, rank 2 refused, and the new checkpoint is reported", async () => {
		const {lastFrame, stdin} = await app();
		await until(lastFrame, f => /RANKS 3/.test(f));
		const from = outputLength();
		await press(stdin, 's', RIGHT);
		await until(lastFrame, f => /▸ Send SIGUSR1/.test(f));
		await press(stdin, ENTER);
		const result = await until(lastFrame, f => /SIGUSR1 \(save\) to job \S+: sent 2, refused 1/.test(f));
		expect(result).toMatch(/rank 0 {2}pid \d+ {2}sent/);
		expect(result).toMatch(/rank 2 {2}pid \d+ {2}refused: rank 2 has no handler for SIGUSR1/);
		await press(stdin, ESC);
		const saved = await until(lastFrame, f => /saved checkpoint_step_\d+_\d+_\d+ in [\d.]+ s/.test(f), 15_000);
		expect(saved).toMatch(/manual/);
		await until(
			() => gotLines(from).join('\n'),
			t => t.split('\n').length === 2,
		);
		expect(gotLines(from).sort()).toEqual(['rank 0 got SIGUSR1', 'rank 1 got SIGUSR1']);
	});

	test('space marks a rank: only the marked one is a target, and y sends without moving to the button', async () => {
		const {lastFrame, stdin} = await app();
		await until(lastFrame, f => /RANKS 3/.test(f));
		const from = outputLength();
		// Cursor on rank 0; space marks it and moves on to rank 1.
		await press(stdin, ' ');
		await until(lastFrame, f => f.includes('target: 1 marked') || /●/.test(f));
		await press(stdin, 's');
		const box = await until(lastFrame, f => f.includes('1 marked rank of 3 · '));
		expect(box).toMatch(/Send SIGUSR1 \(save\) to job \S+\?/);
		expect(box).toMatch(/rank 0 {2}pid/);
		expect(box).not.toMatch(/rank 1 {2}pid/);
		await press(stdin, 'y');
		await until(lastFrame, f => /SIGUSR1 \(save\) to job \S+: sent 1/.test(f));
		await until(
			() => gotLines(from).join('\n'),
			t => t !== '',
		);
		await press(stdin, ESC);
		await settled(stdin, lastFrame);
		expect(gotLines(from)).toEqual(['rank 0 got SIGUSR1']);
	});

	test('--readonly: s and e do nothing, are off the key bar and the help; the bar says READ-ONLY', async () => {
		const {lastFrame, stdin, stdout} = await app({readonly: true});
		await until(lastFrame, f => /RANKS 3/.test(f));
		const from = outputLength();
		// Enter on the ranks opens the rank's detail, which --readonly keeps (it only reads): Esc closes it.
		await press(stdin, 's', 'e', 'y', ENTER, ESC);
		// The detail closed (a loaded machine may take a frame or two for Esc): the main key bar is back.
		const frame = await until(lastFrame, f => f.includes('READ-ONLY') && !f.includes('Esc close'));
		expect(frame).not.toContain('Send SIG');
		expect(frame).toContain('READ-ONLY');
		expect(frame).not.toMatch(/s save/);
		// The help is taller than the box a 24-line terminal has room for (rows − 3) and does not scroll yet:
		// on a taller one it is whole.
		Object.defineProperty(stdout, 'rows', {value: 34, configurable: true});
		stdout.emit('resize');
		await press(stdin, '?');
		const help = await until(lastFrame, f => f.includes('traintop keys') && f.includes('--readonly'));
		expect(help).not.toMatch(/save: send the save signal/);
		expect(help).toContain('--readonly: s and e are off');
		expect(gotLines(from)).toEqual([]);
	});
});

describe('overlays and navigation', () => {
	test('? lists every key of the keymap; Esc closes it', async () => {
		const {lastFrame, stdin} = await app();
		await until(lastFrame, f => /RANKS 3/.test(f));
		await press(stdin, '?');
		const help = await until(lastFrame, f => f.includes('traintop keys'));
		for (const text of [
			'quit',
			'save: send the save signal',
			'emergency checkpoint',
			'mark or unmark',
			'analysis of this run',
			'move down',
		]) {
			expect(help).toContain(text);
		}
		await press(stdin, ESC);
		await until(lastFrame, f => !f.includes('traintop keys') && f.includes('RANKS 3'));
	});

	test('↓ moves the cursor to the next rank; q quits (later keys do nothing)', async () => {
		const {lastFrame, stdin, frames, session} = await app();
		await until(lastFrame, f => /RANKS 3/.test(f));
		const cursorRow = (f: string) => f.split('\n').find(l => l.includes('›'));
		expect(cursorRow(lastFrame() ?? '')).toMatch(/›\s+0\s/);
		await press(stdin, DOWN);
		await until(lastFrame, f => /›\s+1\s/.test(cursorRow(f) ?? ''));
		await press(stdin, 'q');
		// Gone once Ink has let go of stdin (unmounted): a frame it drew on its way out is not one of a live app.
		await untilValue(
			() => (stdin as unknown as NodeJS.EventEmitter).listenerCount('readable'),
			n => n === 0,
			'Ink to let go of stdin',
		);
		const count = frames.length;
		await press(stdin, 's');
		// The session still samples: two more snapshots would each have been a frame of a live app.
		const ticks: number[] = [];
		const off = session.monitor.subscribe(snapshot => ticks.push(snapshot.tick));
		await untilValue(
			() => ticks.length,
			n => n >= 2,
			'two more snapshots',
		);
		off();
		expect(frames.length).toBe(count);
		expect(lastFrame()).not.toContain('Send SIG');
	});

	test('a shows the analysis of the memory log; an empty log says when its first record comes', async () => {
		const log = path.join(dir, 'traintop-memory.jsonl');
		const record = (i: number, percent: number) =>
			JSON.stringify({
				timestamp: new Date(Date.UTC(2026, 10, 22, 8, 0, 30 * i)).toISOString(),
				host: 'node-7',
				interval_s: 30,
				memory: {total_gb: 64, used_gb: (64 * percent) / 100, percent},
				gpus: [],
				alerts: [],
			});
		await writeFile(log, `${[record(0, 40), record(1, 91), record(2, 50)].join('\n')}\n`);
		const {lastFrame, stdin} = await app({log: true, logFile: log});
		await until(lastFrame, f => /RANKS 3/.test(f));
		await press(stdin, 'a');
		// The memory pane's RAM shows around the box: the report is in once the box no longer says it is reading.
		const report = await until(lastFrame, f => f.includes('Analysis of this run') && !f.includes('reading the log'));
		expect(report).toMatch(/91/);
		await press(stdin, ESC);

		await writeFile(log, '');
		await press(stdin, 'a');
		const empty = await until(lastFrame, f => f.includes('no memory record in it'));
		expect(empty).toContain('the first one is written');
	});

	test('a terminal below 60×15 says so instead of drawing panes; a resize back brings them', async () => {
		const {lastFrame, stdout} = await app();
		await until(lastFrame, f => /RANKS 3/.test(f));
		Object.defineProperty(stdout, 'columns', {value: 50, configurable: true});
		Object.defineProperty(stdout, 'rows', {value: 12, configurable: true});
		stdout.emit('resize');
		await until(lastFrame, f => f.includes('terminal 50×12 is too small: traintop needs 60×15'));
		Object.defineProperty(stdout, 'columns', {value: 100, configurable: true});
		Object.defineProperty(stdout, 'rows', {value: 30, configurable: true});
		stdout.emit('resize');
		const back = await until(lastFrame, f => f.includes('RANKS 3'));
		expect(back.split('\n').length).toBeLessThanOrEqual(29);
	});
});

// OVERDUE on a real job: a python process that saves every 20 steps at 20 steps/s (a 1 s cadence) and a manual save
// whenever it gets SIGUSR1, like a DDP job saved on request, watched by a real CheckpointWatcher with the real
// scanner. Healthy: never OVERDUE, manual saves and all. Stopped (SIGSTOP): OVERDUE once the save due has not come by
// its margin; resumed (SIGCONT): cleared by its next save. Being stopped by traintop's own emergency signal: never.
// The waits for OVERDUE, and past it, are the margin's (10 s at least, src/checkpoints/cadence.ts); the rest is the
// cadence's, so the writer saves every second (it saved every 2 s: the same saves, half the wait).

import {type ChildProcess, spawn} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, it} from 'vitest';
import {overdueMarginS} from '../../src/checkpoints/cadence.js';
import {CheckpointWatcher} from '../../src/checkpoints/watch.js';
import type {CheckpointIndex} from '../../src/core/types.js';
import {until} from '../helpers/until.js';

const WRITER = path.resolve('test/fixtures/writers/steady-saver.py');
const EVERY = 20;
const PACE = 20;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startWriter(run: string): Promise<ChildProcess> {
	const child = spawn('python3', ['-u', WRITER, run, String(EVERY), String(PACE)], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	cleanups.push(() => {
		if (child.exitCode === null && child.signalCode === null) {
			child.kill('SIGCONT');
			child.kill('SIGKILL');
		}
	});
	let out = '';
	child.stdout?.on('data', chunk => {
		out += String(chunk);
	});
	await until(
		() => out,
		text => text.includes('ready'),
		'the writer ready',
	);
	return child;
}

const saves = (index: CheckpointIndex | null, kind: string): number =>
	index?.checkpoints.filter(c => c.kind === kind && c.status === 'complete').length ?? 0;

it('a steady saver with manual saves: never OVERDUE; SIGSTOP: OVERDUE; SIGCONT: cleared; our SIGTERM: never', async () => {
	const dir = mkdtempSync(path.join(tmpdir(), 'traintop-writer-'));
	cleanups.push(() => rmSync(dir, {recursive: true, force: true}));
	const run = path.join(dir, 'run');
	const watcher = new CheckpointWatcher({runDir: run, keep: null});
	cleanups.push(() => watcher.stop());
	await watcher.start();
	const writer = await startWriter(run);

	// Every reading of the index from here on is checked: OVERDUE must never show while the job saves.
	let everOverdue = null as CheckpointIndex | null;
	const read = (): CheckpointIndex | null => {
		const index = watcher.getIndex();
		if (index?.lastSave?.overdue) everOverdue ??= index;
		return index;
	};
	const learned = await until(read, index => index?.cadence?.learning === null, 'the cadence learned', 60_000);
	expect(learned?.cadence).toMatchObject({everySteps: EVERY, from: 'learned'});
	expect(learned?.cadence?.stepsPerSecond).toBeGreaterThan(0);

	// Two manual saves in between, off the cadence, each on a real SIGUSR1.
	for (const n of [1, 2]) {
		writer.kill('SIGUSR1');
		await until(read, index => saves(index, 'manual') === n, `manual save ${n}`, 30_000);
	}
	const periodicNow = saves(read(), 'periodic');
	// Several cadences more: five periodic saves.
	await until(read, index => saves(index, 'periodic') >= periodicNow + 5, 'five more periodic saves', 60_000);
	expect(everOverdue, `OVERDUE on a healthy job: ${JSON.stringify(everOverdue?.cadence)}`).toBeNull();
	expect(read()?.cadence).toMatchObject({everySteps: EVERY, learning: null, suspended: null});

	// Stopped: OVERDUE once the save due has not come by its margin, judged within 2 × the cadence plus the margin of
	// the last periodic save (the index's own figures; the wait itself is not timed).
	writer.kill('SIGSTOP');
	const late = await until(
		() => watcher.getIndex(),
		index => index?.lastSave?.overdue === true,
		'OVERDUE after SIGSTOP',
		120_000,
	);
	const cadence = late!.cadence!;
	const lastPeriodic = late!.lastSave!.periodicTime!;
	const margin = overdueMarginS(cadence.everySeconds!) * 1000;
	expect(cadence.overdueAt! - lastPeriodic).toBeLessThanOrEqual(2 * cadence.everySeconds! * 1000 + margin);
	expect(late?.lastSave?.overdueAt).toBe(cadence.overdueAt);

	// Resumed: its next save clears it.
	writer.kill('SIGCONT');
	await until(
		() => watcher.getIndex(),
		index => index?.lastSave?.overdue === false && (index.lastSave.periodicTime ?? 0) > lastPeriodic,
		'OVERDUE cleared after SIGCONT',
		60_000,
	);

	// traintop stops it with the emergency signal; the job hangs in its shutdown and saves nothing more. Not late,
	// read on the clock until well past when the save due would have been OVERDUE.
	const before = watcher.getIndex()!.cadence!;
	const wouldBeLate = before.overdueAt!;
	watcher.noteSignal({signal: 'SIGTERM', expect: 'emergency', at: Date.now(), job: null});
	writer.kill('SIGTERM');
	let overdueWhileStopping = false;
	await until(
		() => {
			const index = watcher.getIndex();
			if (index?.lastSave?.overdue) overdueWhileStopping = true;
			return Date.now();
		},
		now => now > wouldBeLate + 2000,
		'past the time the save would have been late',
		120_000,
	);
	expect(overdueWhileStopping).toBe(false);
	expect(watcher.getIndex()?.cadence?.suspended).toMatch(/^traintop sent SIGTERM \(emergency\)/);
}, 300_000);

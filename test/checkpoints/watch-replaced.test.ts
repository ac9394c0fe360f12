// A run dir deleted and made again while watched (`rm -rf runs/x && mkdir runs/x`, a job restarted from scratch):
// the watch followed the old inode and saw nothing more. Real dirs, the real scanner, real inotify and polling.

import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {CheckpointWatcher} from '../../src/checkpoints/watch.js';
import {checkpointEvents} from '../../src/core/job-events.js';
import type {CheckpointIndex} from '../../src/core/types.js';
import {until} from '../helpers/until.js';

const dirs: string[] = [];
const watchers: CheckpointWatcher[] = [];
afterEach(async () => {
	await Promise.all(watchers.splice(0).map(w => w.stop()));
	for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true});
});

function saveAt(run: string, step: number): void {
	mkdirSync(path.join(run, 'checkpoints'), {recursive: true});
	writeFileSync(path.join(run, 'checkpoints', `model_step${step}.pt`), 'x'.repeat(64));
}

const steps = (index: CheckpointIndex | null) => index?.checkpoints.map(c => c.step) ?? [];

/** A run dir with a save at step 100, under a started watcher (`poll`, or inotify) that checks its identity every 100 ms. */
async function watchedRun(poll: {readonly intervalMs: number} | null) {
	const base = mkdtempSync(path.join(tmpdir(), 'traintop-replaced-'));
	dirs.push(base);
	const run = path.join(base, 'run');
	saveAt(run, 100);
	const watcher = new CheckpointWatcher({runDir: run, keep: null, poll, identityCheckMs: 100});
	watchers.push(watcher);
	await watcher.start();
	return {run, watcher};
}

describe.each([
	['inotify', null],
	['polling', {intervalMs: 100}],
] as const)('a run dir deleted and made again (%s)', (_mode, poll) => {
	it('is watched again: its new checkpoints are seen, and an event says what happened', async () => {
		const {run, watcher} = await watchedRun(poll);
		const first = watcher.getIndex();
		expect(steps(first)).toEqual([100]);

		rmSync(run, {recursive: true});
		const gone = await until(
			() => watcher.getIndex(),
			index => index?.runDirReplaced !== undefined,
			'the deletion noticed',
		);
		expect(gone?.runDirReplaced?.text).toBe(`run dir ${run} was deleted: waiting for it to be made again`);
		expect(steps(gone)).toEqual([]);

		mkdirSync(run);
		await until(() => watcher.watching, Boolean, 'watching the new dir');
		saveAt(run, 200);
		const after = await until(
			() => watcher.getIndex(),
			index => steps(index).includes(200),
			'step 200 seen',
		);
		expect(steps(after)).toEqual([200]);
		expect(after?.runDirReplaced?.text).toBe(`run dir ${run} was deleted and made again: watching the new one`);
		// What the alerts pane and the headless line show: one warning per change, none for an unchanged index.
		const events = checkpointEvents(first, gone ?? null, 1, null);
		expect(events.map(e => [e.kind, e.level, e.text])).toEqual([
			['run-dir-replaced', 'warn', `run dir ${run} was deleted: waiting for it to be made again`],
		]);
		expect(checkpointEvents(after, after, 2, null)).toEqual([]);
		// And a save after the re-attach is seen by a plain file event, not only by the identity check's rescan.
		saveAt(run, 300);
		await until(
			() => steps(watcher.getIndex()),
			s => s.includes(300),
			'step 300 seen',
		);
	});

	it('deleted and made again between two checks (no moment without it): still re-attached', async () => {
		const {run, watcher} = await watchedRun(poll);
		rmSync(run, {recursive: true});
		mkdirSync(run);
		await until(() => watcher.getIndex()?.runDirReplaced, Boolean, 'the replacement noticed');
		saveAt(run, 400);
		await until(
			() => steps(watcher.getIndex()),
			s => s.includes(400),
			'step 400 seen',
		);
		expect(steps(watcher.getIndex())).toEqual([400]);
	});
});

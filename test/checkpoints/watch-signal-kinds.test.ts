// CheckpointWatcher.noteSignal (src/checkpoints/watch.ts) with real chokidar and the real scanner on generic-layout
// run dirs (ckpt_step<N>.pt, no record of why a save was made): the save after a noted signal takes its kind, also
// when the watcher had scanned it before the note came, and keeps it; once retention deleted it, the next save is the
// job's own. The tests wait for the watcher's own events: no sleeps.

import {renameSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import type {CheckpointWatcher} from '../../src/checkpoints/watch.js';
import type {CheckpointIndex} from '../../src/core/types.js';
import {makeTempDir, removeTempDirs, startedWatcher, stopStartedWatchers} from './fixtures.js';

afterEach(async () => {
	await stopStartedWatchers();
	removeTempDirs();
});

/** torch.save through a temporary name, as a job writes it. */
function save(run: string, step: number): string {
	const name = `ckpt_step${step}.pt`;
	writeFileSync(path.join(run, `${name}.tmp`), Buffer.alloc(2048, 1));
	renameSync(path.join(run, `${name}.tmp`), path.join(run, name));
	return name;
}

/** The first index published after this call for which `ok` holds. */
function published(watcher: CheckpointWatcher, ok: (index: CheckpointIndex) => boolean): Promise<CheckpointIndex> {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error('no such index in 15 s')), 15_000);
		const off = watcher.subscribe(index => {
			if (!ok(index)) return;
			clearTimeout(timer);
			off();
			resolve(index);
		});
	});
}

const kindOf = (index: CheckpointIndex, name: string) => index.checkpoints.find(c => c.name === name)?.kind;

describe('CheckpointWatcher: kinds after a noted signal', () => {
	it('the save after the note is manual; once retention deleted it, the next save is not taken for it', async () => {
		const run = makeTempDir('traintop-signal-kinds-');
		save(run, 300);
		const watcher = await startedWatcher(run);
		watcher.noteSignal({signal: 'SIGUSR1', expect: 'manual', at: Date.now(), job: 'j'});
		const answered = published(watcher, index => kindOf(index, 'ckpt_step714.pt') === 'manual');
		save(run, 714);
		const index = await answered;
		expect(kindOf(index, 'ckpt_step300.pt')).toBe('unknown');
		expect(index.checkpoints.find(c => c.name === 'ckpt_step714.pt')?.kindNote).toMatch(
			/^after traintop's SIGUSR1 at \d\d:\d\d:\d\d$/,
		);
		expect(watcher.signalsSent[0]?.answeredBy).toEqual([path.join(run, 'ckpt_step714.pt')]);

		// Retention deletes the answer as the next save lands: that one is the job's own.
		const next = published(watcher, i => kindOf(i, 'ckpt_step900.pt') !== undefined && !kindOf(i, 'ckpt_step714.pt'));
		rmSync(path.join(run, 'ckpt_step714.pt'));
		save(run, 900);
		expect(kindOf(await next, 'ckpt_step900.pt')).toBe('unknown');
	});

	it('a save the watcher scanned before the note came still answers it', async () => {
		const run = makeTempDir('traintop-signal-kinds-late-');
		const watcher = await startedWatcher(run);
		const sentAt = Date.now();
		const scanned = published(watcher, index => kindOf(index, 'ckpt_step714.pt') === 'unknown');
		save(run, 714);
		await scanned;
		const relabelled = published(watcher, index => kindOf(index, 'ckpt_step714.pt') === 'emergency');
		watcher.noteSignal({signal: 'SIGTERM', expect: 'emergency', at: sentAt, job: null});
		expect((await relabelled).checkpoints).toHaveLength(1);
	});
});

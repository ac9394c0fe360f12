// Issue 17 (large and busy run dirs): a rescan must not stat every file of every checkpoint again. A complete
// checkpoint whose directories did not change keeps its size and times from the last scan; a partial one, or one
// whose directory gained, lost or renamed a file (at any depth), is counted again; one whose names are as they were
// but whose directory times changed (a rename storm) is counted again at most every RECOUNT_AFTER_MS. Real files.

import {appendFileSync, renameSync, rmSync} from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {listNamesOrNull} from '../../src/checkpoints/fs.js';
import {mapLimited} from '../../src/checkpoints/map-limited.js';
import {scanRunDir} from '../../src/checkpoints/scan.js';
import {RECOUNT_AFTER_MS, recountAfterMs} from '../../src/checkpoints/tree-stats-cache.js';
import {makeTempDir, mkdir, put, removeTempDirs, trainerState} from './fixtures.js';

afterEach(() => {
	vi.restoreAllMocks();
	removeTempDirs();
});

/** An HF Trainer checkpoint of `bytes` in one shard, complete (trainer_state.json) unless `partial`. */
function hfCheckpoint(run: string, step: number, bytes: number, partial = false): string {
	const dir = mkdir(run, `checkpoint-${step}`);
	put(dir, 'model.safetensors', bytes);
	if (!partial) put(dir, 'trainer_state.json', trainerState({epoch: 1, step, losses: [1]}));
	return dir;
}

async function bytesOf(run: string, name: string): Promise<number | undefined> {
	const scan = await scanRunDir(run);
	return scan.checkpoints.find(c => c.name === name)?.bytes;
}

describe('rescan of unchanged checkpoints', () => {
	it('reuses a complete checkpoint’s totals while its directory is unchanged (in-place rewrites are not seen)', async () => {
		const run = makeTempDir();
		const dir = hfCheckpoint(run, 10, 1000);
		const state = (await bytesOf(run, 'checkpoint-10'))!;
		expect(state).toBeGreaterThan(1000);
		// Grown in place: the checkpoint dir's mtime, ctime and entry count stay the same, so the files are not
		// stat'ed again and the size is the one from the first scan. This is the trade accepted for not stat'ing
		// 100k files per rescan: a complete checkpoint is not rewritten in place by any framework the scan knows.
		appendFileSync(path.join(dir, 'model.safetensors'), Buffer.alloc(500));
		expect(await bytesOf(run, 'checkpoint-10')).toBe(state);
	});

	it('counts again once a file is created, renamed or removed in the checkpoint dir', async () => {
		const run = makeTempDir();
		const dir = hfCheckpoint(run, 10, 1000);
		const first = (await bytesOf(run, 'checkpoint-10'))!;
		put(dir, 'optimizer.pt', 300);
		expect(await bytesOf(run, 'checkpoint-10')).toBe(first + 300);
		appendFileSync(path.join(dir, 'optimizer.pt'), Buffer.alloc(50));
		renameSync(path.join(dir, 'optimizer.pt'), path.join(dir, 'optimizer.bin'));
		expect(await bytesOf(run, 'checkpoint-10')).toBe(first + 350);
		rmSync(path.join(dir, 'optimizer.bin'));
		expect(await bytesOf(run, 'checkpoint-10')).toBe(first);
	});

	it('keeps the count through renames that leave the names as they were, and counts again 1–2 × RECOUNT_AFTER_MS later', async () => {
		const run = makeTempDir();
		const dir = hfCheckpoint(run, 10, 1000);
		const first = (await bytesOf(run, 'checkpoint-10'))!;
		// A file replaced by a rename over it (a tool's atomic rewrite), then a shard renamed away and back (a storm):
		// the names are as before, only the directory's times changed.
		put(dir, 'model.tmp', 1600);
		renameSync(path.join(dir, 'model.tmp'), path.join(dir, 'model.safetensors'));
		renameSync(path.join(dir, 'trainer_state.json'), path.join(dir, 'state.tmp'));
		renameSync(path.join(dir, 'state.tmp'), path.join(dir, 'trainer_state.json'));
		expect(await bytesOf(run, 'checkpoint-10')).toBe(first);
		const [now, after] = [Date.now(), recountAfterMs(dir)];
		expect(after).toBeGreaterThanOrEqual(RECOUNT_AFTER_MS);
		expect(after).toBeLessThan(2 * RECOUNT_AFTER_MS);
		const clock = vi.spyOn(Date, 'now').mockReturnValue(now + after - 1000);
		expect(await bytesOf(run, 'checkpoint-10')).toBe(first);
		clock.mockReturnValue(now + after + 1000);
		expect(await bytesOf(run, 'checkpoint-10')).toBe(first + 600);
		clock.mockRestore();
	});

	it('spreads the recounts of many checkpoints over the window instead of one rescan counting them all', () => {
		const waits = Array.from({length: 1000}, (_, i) => recountAfterMs(`/runs/x/checkpoints/checkpoint-${i * 10}`));
		const due = (from: number, to: number) =>
			waits.filter(w => w >= RECOUNT_AFTER_MS * from && w < RECOUNT_AFTER_MS * to).length;
		// Ten slices of the window: each holds about a tenth of them.
		for (let slice = 0; slice < 10; slice++) expect(due(1 + slice / 10, 1 + (slice + 1) / 10)).toBeLessThan(150);
		expect(due(1, 2)).toBe(1000);
	});

	it('counts again when a file appears in a subdirectory (the top dir does not change)', async () => {
		const run = makeTempDir();
		const dir = hfCheckpoint(run, 10, 1000);
		put(dir, 'global_step10/shard-0.pt', 100);
		const first = (await bytesOf(run, 'checkpoint-10'))!;
		put(dir, 'global_step10/shard-1.pt', 200);
		expect(await bytesOf(run, 'checkpoint-10')).toBe(first + 200);
	});

	it('counts a partial checkpoint again on every scan, so a save still being written grows', async () => {
		const run = makeTempDir();
		const dir = hfCheckpoint(run, 20, 1000, true);
		expect(await bytesOf(run, 'checkpoint-20')).toBe(1000);
		appendFileSync(path.join(dir, 'model.safetensors'), Buffer.alloc(500));
		expect(await bytesOf(run, 'checkpoint-20')).toBe(1500);
	});
});

describe('bounded per-checkpoint work', () => {
	it('runs at most `limit` at a time and keeps the order of the input', async () => {
		let running = 0;
		let most = 0;
		const items = Array.from({length: 100}, (_, i) => i);
		const out = await mapLimited(items, 16, async i => {
			running += 1;
			most = Math.max(most, running);
			await new Promise(resolve => setImmediate(resolve));
			running -= 1;
			return i * 2;
		});
		expect(most).toBe(16);
		expect(out).toEqual(items.map(i => i * 2));
	});
});

describe('names-only listing', () => {
	it('lists names sorted, without following or stat’ing, and null for a missing dir', async () => {
		const run = makeTempDir();
		put(run, 'b.bin', 1);
		mkdir(run, 'a');
		put(run, 'c.json', '{}');
		expect(await listNamesOrNull(run)).toEqual(['a', 'b.bin', 'c.json']);
		expect(await listNamesOrNull(path.join(run, 'gone'))).toBeNull();
		expect(await listNamesOrNull(path.join(run, 'b.bin'))).toBeNull();
	});
});

// How long a save took to write, read from its own files: the first file's birth time to the last file's mtime.
// Real files in a temp dir; the clock cannot set a birth time, so the "later" write moves the last file's mtime
// forward (utimes) instead of sleeping. Then which save the time-at-risk line takes it from.

import {statSync} from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {treeStats} from '../../src/checkpoints/fs.js';
import {scanRunDir, writeSeconds} from '../../src/checkpoints/scan.js';
import {lastSaveDuration} from '../../src/checkpoints/save-duration.js';
import {checkpoint, checkpointIndex} from '../helpers/checkpoint-data.js';
import {makeTempDir, put, removeTempDirs, seedCheckpoint, seedMetadata, setMtime} from './fixtures.js';

afterAll(removeTempDirs);

/** Birth times are recorded on ext4, xfs and btrfs; tmpfs and overlayfs over them may give 0. */
const birthRecorded = statSync(makeTempDir()).birthtimeMs > 0;

describe('writeSeconds', () => {
	it.each<[string, number, number, number | null]>([
		['a 30 s write', 1_000_000, 1_030_000, 30],
		['written at once', 1_000_000, 1_000_000, 0],
		['no birth time recorded (0)', 0, 1_030_000, null],
		['copied with the old mtimes kept: last write before the first birth', 1_000_000, 900_000, null],
		['no file', 1_000_000, 0, null],
	])('%s', (_name, birth, mtime, want) => {
		expect(writeSeconds(birth, mtime)).toBe(want);
	});
});

describe.skipIf(!birthRecorded)('the write span of real checkpoint files', () => {
	it('a directory: from its first file created to its last file written', async () => {
		const dir = makeTempDir();
		put(dir, 'ckpt/model.safetensors', 4096);
		const last = put(dir, 'ckpt/sub/optimizer.pt', 1024);
		const born = statSync(path.join(dir, 'ckpt/model.safetensors')).birthtimeMs;
		setMtime(last, born + 42_000);
		const stats = await treeStats(path.join(dir, 'ckpt'));
		expect(stats.bytes).toBe(5120);
		expect(stats.firstBirthMs).toBeCloseTo(born, -2);
		expect(stats.lastMtimeMs).toBeCloseTo(born + 42_000, -1);
		expect(stats.error).toBeNull();
	});

	it('the scan gives each complete checkpoint its write time, none to a partial one', async () => {
		const runDir = makeTempDir();
		const now = Date.now();
		const first = seedCheckpoint(runDir, {step: 100, epoch: 0, kind: 'periodic', time: now - 60_000});
		const second = seedCheckpoint(runDir, {step: 200, epoch: 0, kind: 'periodic', time: now});
		seedMetadata(runDir, [first, second], 3);
		const born = statSync(path.join(second.dir, 'state.pt')).birthtimeMs;
		setMtime(path.join(second.dir, 'meta.json'), born + 25_000);
		const result = await scanRunDir(runDir);
		const byName = new Map(result.checkpoints.map(c => [c.name, c]));
		expect(byName.get(second.name)?.writeS).toBeCloseTo(25, 0);
		expect(byName.get(first.name)?.writeS).toBeLessThan(5);

		// A file checkpoint (the generic layout, in a run dir of its own) is its own span: created, written for 7 s.
		const fileRun = makeTempDir();
		const single = put(fileRun, 'ckpt-200.bin', 64);
		setMtime(single, statSync(single).birthtimeMs + 7_000);
		const files = await scanRunDir(fileRun);
		expect(files.checkpoints.map(c => [c.name, c.writeS === null ? null : Math.round(c.writeS)])).toEqual([
			['ckpt-200.bin', 7],
		]);

		// Written, then copied elsewhere with its mtimes kept (cp -p): no span can be told.
		const copied = seedCheckpoint(runDir, {step: 300, epoch: 0, kind: 'periodic', time: now}, '.tmp');
		setMtime(path.join(copied.dir, 'state.pt'), now - 3_600_000);
		setMtime(path.join(copied.dir, 'meta.json'), now - 3_600_000);
		const again = await scanRunDir(runDir);
		const partial = again.checkpoints.find(c => c.name === copied.name);
		expect(partial?.status).toBe('partial');
		expect(partial?.writeS).toBeNull();
	});
});

describe('lastSaveDuration: the save the time-at-risk line weighs the warning lead against', () => {
	it('the newest complete save, not a partial one, and not a `last` copy', () => {
		const index = checkpointIndex({
			checkpoints: [
				checkpoint(1000, 60, {writeS: 30}),
				checkpoint(1500, 30, {writeS: 45}),
				checkpoint(1510, 1, {status: 'partial', writeS: null}),
				checkpoint(1500, 0, {name: 'last', kind: 'last', writeS: 2}),
			],
		});
		expect(lastSaveDuration(index)).toEqual({seconds: 45, name: 'checkpoint_step_1500'});
	});

	it('skips a span as long as the usual interval (a file rewritten in place keeps its first birth)', () => {
		const index = checkpointIndex({
			checkpoints: [checkpoint(1000, 60, {writeS: 30}), checkpoint(1500, 30, {writeS: 3600})],
		});
		expect(index.lastSave?.medianIntervalS).toBe(900);
		expect(lastSaveDuration(index)).toEqual({seconds: 30, name: 'checkpoint_step_1000'});
	});

	it('null without an index or without a measured save', () => {
		expect(lastSaveDuration(null)).toBeNull();
		expect(lastSaveDuration(checkpointIndex({checkpoints: [checkpoint(1000, 60, {writeS: null})]}))).toBeNull();
	});
});

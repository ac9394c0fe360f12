import {rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {parseCheckpointState, UNTRACKED} from '../../../src/checkpoints/layouts/tensorflow.js';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {makeTempDir, removeTempDirs} from '../fixtures.js';
import {TfManager} from './tensorflow-fixture.js';

// TensorFlow's CheckpointManager: a checkpoint is the prefix ckpt-N (ckpt-N.index + ckpt-N.data-K-of-M), recorded
// in the `checkpoint` state file after its files are merged; _sweep deletes the oldest beyond max_to_keep.

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 2, 1, 8, 0, 0);
const MIN = 60_000;
const HOUR = 60 * MIN;

async function indexOf(run: string, keep: number | null) {
	const scan = await scanRunDir(run);
	return {scan, index: buildIndex(scan, {keep, now: T0 + 100 * HOUR, disk: null})};
}

function managerRun(run: string, saves: number, options: {maxToKeep: number | null; shards?: number}): TfManager {
	const manager = new TfManager(run, 'checkpoints', {maxToKeep: options.maxToKeep, start: T0});
	for (let n = 1; n <= saves; n++) manager.save(n, {time: T0 + n * MIN, shards: options.shards});
	return manager;
}

describe('TensorFlow layout: one checkpoint per prefix', () => {
	it('max_to_keep 3 after 5 saves: ckpt-3..5, each the sum of its files, timed by the state file', async () => {
		const run = makeTempDir();
		const manager = managerRun(run, 5, {maxToKeep: 3, shards: 2});
		const {scan, index} = await indexOf(run, 3);
		expect(scan.layouts).toEqual(['tensorflow']);
		expect(scan.warnings).toEqual([]);
		const at = (n: number): string => path.join(manager.dir, `ckpt-${n}`);
		// index 120 + shards 300 and 310
		expect(scan.checkpoints.map(c => [c.path, c.step, c.kind, c.status, c.bytes, c.time])).toEqual([
			[at(3), 3, 'periodic', 'complete', 730, T0 + 3 * MIN],
			[at(4), 4, 'periodic', 'complete', 730, T0 + 4 * MIN],
			[at(5), 5, 'periodic', 'complete', 730, T0 + 5 * MIN],
		]);
		expect(index.retention.groups.map(g => [g.dir, g.rule, g.count, g.toPrune])).toEqual([
			['checkpoints', 'TF CheckpointManager max_to_keep 3', 3, [at(3)]],
		]);
	});

	it('without --keep nothing is planned (max_to_keep is not on disk)', async () => {
		const run = makeTempDir();
		managerRun(run, 2, {maxToKeep: 5});
		const {index} = await indexOf(run, null);
		expect(index.retention.groups[0]).toMatchObject({
			rule: 'TF CheckpointManager max_to_keep unknown: keeps all (--keep N)',
			toPrune: [],
		});
	});

	it('keep_checkpoint_every_n_hours: a preserved save, gone from the state file, is never deleted', async () => {
		const run = makeTempDir();
		const manager = new TfManager(run, 'checkpoints', {maxToKeep: 2, keepEveryHours: 1, start: T0});
		for (const [n, time] of [
			[1, T0 + 2 * HOUR],
			[2, T0 + 2 * HOUR + MIN],
			[3, T0 + 2 * HOUR + 2 * MIN],
		] as const) {
			manager.save(n, {time});
		}
		const {scan, index} = await indexOf(run, 2);
		const at = (n: number): string => path.join(manager.dir, `ckpt-${n}`);
		expect(scan.checkpoints.map(c => [c.name, c.status, c.warnings])).toEqual([
			['ckpt-1', 'complete', [UNTRACKED]],
			['ckpt-2', 'complete', []],
			['ckpt-3', 'complete', []],
		]);
		const group = index.retention.groups[0];
		expect(group?.rule).toBe('TF CheckpointManager max_to_keep 2, keep_checkpoint_every_n_hours may spare the oldest');
		expect(group?.toPrune).toEqual([at(2)]);
		expect(index.checkpoints.map(c => c.retention)).toEqual(['protected', 'prune-next', 'keep']);
	});
});

describe('TensorFlow layout: partial saves, one per way a save can be unfinished', () => {
	async function partials(run: string): Promise<Record<string, readonly string[]>> {
		const {scan} = await indexOf(run, null);
		expect(scan.layouts).toEqual(['tensorflow']);
		return Object.fromEntries(scan.checkpoints.filter(c => c.status === 'partial').map(c => [c.name, c.warnings]));
	}

	it('a ckpt-N_temp directory left behind (the entry is the directory)', async () => {
		const run = makeTempDir();
		const manager = managerRun(run, 2, {maxToKeep: 5});
		manager.save(3, {time: T0 + 3 * MIN, stopAfter: 'temp'});
		expect(await partials(run)).toEqual({'ckpt-3_temp': ['ckpt-3_temp left behind: the save did not finish']});
	});

	it('data shards merged but no index yet', async () => {
		const run = makeTempDir();
		const manager = managerRun(run, 2, {maxToKeep: 5});
		manager.save(3, {time: T0 + 3 * MIN, stopAfter: 'data'});
		// The merge has not removed the temp dir either: that is what the scan reports.
		expect(await partials(run)).toEqual({'ckpt-3_temp': ['ckpt-3_temp left behind: the save did not finish']});
	});

	it('an index without its data shard', async () => {
		const run = makeTempDir();
		const manager = managerRun(run, 1, {maxToKeep: 5});
		manager.save(2, {time: T0 + 2 * MIN, shards: 2, lose: [1]});
		expect(await partials(run)).toEqual({'ckpt-2': ['data shard 00001 of 2 missing']});
	});

	it('a listed checkpoint whose index is gone', async () => {
		const run = makeTempDir();
		const manager = managerRun(run, 2, {maxToKeep: 5});
		rmSync(path.join(manager.dir, 'ckpt-2.index'));
		expect(await partials(run)).toEqual({'ckpt-2': ['no ckpt-2.index: the save did not finish']});
	});

	it('whole files not yet in the `checkpoint` state file', async () => {
		const run = makeTempDir();
		const manager = managerRun(run, 2, {maxToKeep: 2});
		manager.save(3, {time: T0 + 3 * MIN, stopAfter: 'index'});
		expect(await partials(run)).toEqual({
			'ckpt-3': ['not yet in the `checkpoint` state file: the save has not finished'],
		});
		// The rotation counts the two recorded saves only.
		const {index} = await indexOf(run, 2);
		expect(index.retention.groups[0]?.toPrune).toEqual([path.join(manager.dir, 'ckpt-1')]);
	});

	it('no `checkpoint` state file at all: the first save has not been recorded', async () => {
		const run = makeTempDir();
		const manager = new TfManager(run, 'checkpoints', {maxToKeep: 5, start: T0});
		manager.save(1, {time: T0 + MIN, stopAfter: 'index'});
		expect(await partials(run)).toEqual({'ckpt-1': ['no `checkpoint` state file yet: the save has not finished']});
	});
});

describe('TensorFlow layout: the state file', () => {
	it('parses MessageToString output, absolute TF1 paths included', () => {
		const text = [
			'model_checkpoint_path: "/runs/a/model.ckpt-20"',
			'all_model_checkpoint_paths: "/runs/a/model.ckpt-10"',
			'all_model_checkpoint_paths: "/runs/a/model.ckpt-20"',
			'all_model_checkpoint_timestamps: 1772352060.5',
			'all_model_checkpoint_timestamps: 1.7723521205e+09',
			'last_preserved_timestamp: 1772351999.0',
		].join('\n');
		const state = parseCheckpointState(text);
		expect(state).toEqual({
			paths: new Map([
				['model.ckpt-10', 1772352060500],
				['model.ckpt-20', 1772352120500],
			]),
			latestStep: 20,
		});
	});

	it('a malformed state file is a warning, and its checkpoints count as unrecorded', async () => {
		const run = makeTempDir();
		const manager = managerRun(run, 1, {maxToKeep: 5});
		writeFileSync(path.join(manager.dir, 'checkpoint'), 'model_checkpoint_path ckpt-1\n');
		const {scan} = await indexOf(run, null);
		expect(scan.warnings).toEqual(['checkpoints/checkpoint: line 1 is not a field of a CheckpointState']);
		expect(scan.checkpoints.map(c => [c.name, c.status])).toEqual([['ckpt-1', 'partial']]);
	});
});

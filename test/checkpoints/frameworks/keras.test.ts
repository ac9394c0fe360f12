import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {parseKerasName} from '../../../src/checkpoints/layouts/keras.js';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {makeTempDir, put, removeTempDirs} from '../fixtures.js';
import {hdf5File, kerasSave} from './keras-fixture.js';

// Keras ModelCheckpoint: one .keras zip or .weights.h5 HDF5 file per save, named by the user's template; it never
// deletes anything (save_best_only overwrites one fixed name).

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 2, 1, 8, 0, 0);
const MIN = 60_000;

async function indexOf(run: string, keep: number | null) {
	const scan = await scanRunDir(run);
	return {scan, index: buildIndex(scan, {keep, now: T0 + 60 * MIN, disk: null})};
}

describe('Keras layout: what the filled-in template carries', () => {
	it('model.{epoch:02d}-{val_loss:.2f}.keras: epoch and an unnamed score; never deleted, whatever --keep says', async () => {
		const run = makeTempDir();
		const names = ['model.01-0.90.keras', 'model.02-0.71.keras', 'model.03-0.65.keras'];
		const files = names.map((name, i) => kerasSave(run, 'checkpoints', {name, time: T0 + i * MIN}));
		const {scan, index} = await indexOf(run, 1);
		expect(scan.layouts).toEqual(['keras']);
		expect(scan.checkpoints.map(c => [c.path, c.epoch, c.step, c.kind, c.status, c.metric])).toEqual([
			[files[0], 1, null, 'periodic', 'complete', {name: '(unnamed)', value: 0.9}],
			[files[1], 2, null, 'periodic', 'complete', {name: '(unnamed)', value: 0.71}],
			[files[2], 3, null, 'periodic', 'complete', {name: '(unnamed)', value: 0.65}],
		]);
		expect(index.retention.groups.map(g => [g.dir, g.rule, g.keep, g.toPrune])).toEqual([
			['checkpoints', 'Keras never deletes', null, []],
		]);
		expect(index.checkpoints.map(c => c.retention)).toEqual(['keep', 'keep', 'keep']);
	});

	it('named scores and batches in .weights.h5 names; best_model.keras is the best, protected', async () => {
		const run = makeTempDir();
		kerasSave(run, '', {name: 'ckpt-epoch05-val_accuracy0.9123.weights.h5', time: T0});
		kerasSave(run, '', {name: 'weights.batch300-loss1.25.weights.h5', time: T0 + MIN});
		kerasSave(run, '', {name: 'best_model.keras', time: T0 + 2 * MIN});
		const {scan, index} = await indexOf(run, null);
		expect(scan.layouts).toEqual(['keras']);
		const seen = Object.fromEntries(scan.checkpoints.map(c => [c.name, [c.epoch, c.step, c.kind, c.metric]]));
		expect(seen).toEqual({
			'ckpt-epoch05-val_accuracy0.9123.weights.h5': [5, null, 'periodic', {name: 'val_accuracy', value: 0.9123}],
			'weights.batch300-loss1.25.weights.h5': [null, 300, 'periodic', {name: 'loss', value: 1.25}],
			'best_model.keras': [null, null, 'best', null],
		});
		const marks = Object.fromEntries(index.checkpoints.map(c => [c.name, c.retention]));
		expect(marks['best_model.keras']).toBe('protected');
	});

	it.each([
		['model.05', {epoch: 5, step: null, metric: null, kind: 'periodic'}],
		['05-0.32', {epoch: 5, step: null, metric: {name: '(unnamed)', value: 0.32}, kind: 'periodic'}],
		['epoch=03-val_loss=0.412', {epoch: 3, step: null, metric: {name: 'val_loss', value: 0.412}, kind: 'periodic'}],
		['ep007_acc0.91', {epoch: 7, step: null, metric: {name: 'acc', value: 0.91}, kind: 'periodic'}],
		['checkpoint.model', {epoch: null, step: null, metric: null, kind: 'unknown'}],
		['model_last', {epoch: null, step: null, metric: null, kind: 'last'}],
		['val_loss0.32', {epoch: null, step: null, metric: {name: 'val_loss', value: 0.32}, kind: 'unknown'}],
	])('%s', (stem, expected) => {
		expect(parseKerasName(stem)).toEqual(expected);
	});

	it('a legacy .h5 / .hdf5 is taken only when its name carries an epoch or a score', async () => {
		const run = makeTempDir();
		kerasSave(run, '', {name: 'weights.05-0.32.hdf5', time: T0});
		put(run, 'features.h5', hdf5File({length: 400}));
		const scan = await scanRunDir(run);
		expect(scan.layouts).toEqual(['keras']);
		expect(scan.checkpoints.map(c => [c.name, c.epoch])).toEqual([['weights.05-0.32.hdf5', 5]]);
	});
});

describe('Keras layout: partial saves, one per way a save can be unfinished', () => {
	async function partials(run: string): Promise<Record<string, readonly string[]>> {
		const {scan} = await indexOf(run, null);
		expect(scan.layouts).toEqual(['keras']);
		return Object.fromEntries(scan.checkpoints.filter(c => c.status === 'partial').map(c => [c.name, c.warnings]));
	}

	it('a .keras zip without its end record', async () => {
		const run = makeTempDir();
		kerasSave(run, '', {name: 'model.01.keras', time: T0});
		kerasSave(run, '', {name: 'model.02.keras', time: T0 + MIN, cut: 900});
		expect(await partials(run)).toEqual({'model.02.keras': ['truncated: no zip end record']});
	});

	it('an empty .keras', async () => {
		const run = makeTempDir();
		kerasSave(run, '', {name: 'model.01.keras', time: T0, cut: 0});
		expect(await partials(run)).toEqual({'model.01.keras': ['empty file: the save did not get to write it']});
	});

	it('a .weights.h5 still open for writing (longer than its recorded end of file, as mid-save)', async () => {
		const run = makeTempDir();
		const open = Buffer.concat([hdf5File({length: 1500, open: true}), Buffer.alloc(4000, 3)]);
		put(run, 'model.01.weights.h5', open);
		kerasSave(run, '', {name: 'model.02.weights.h5', time: T0 + MIN});
		expect(await partials(run)).toEqual({
			'model.01.weights.h5': [
				'HDF5 write-access flag set: the file is still open for writing, or its writer died before closing it',
			],
		});
	});

	it('a .weights.h5 shorter than its superblock’s end of file (v0 and v3 superblocks)', async () => {
		const run = makeTempDir();
		kerasSave(run, '', {name: 'model.01.weights.h5', time: T0, cut: 1000});
		put(run, 'model.02.weights.h5', hdf5File({length: 2000, version: 3}).subarray(0, 1200));
		put(run, 'model.03.weights.h5', hdf5File({length: 2000, version: 3}));
		expect(await partials(run)).toEqual({
			'model.01.weights.h5': ['truncated: 1000 of the 1500 bytes its HDF5 superblock gives as end of file'],
			'model.02.weights.h5': ['truncated: 1200 of the 2000 bytes its HDF5 superblock gives as end of file'],
		});
	});

	it('a .weights.h5 cut before its signature', async () => {
		const run = makeTempDir();
		kerasSave(run, '', {name: 'model.01.weights.h5', time: T0, cut: 5});
		expect(await partials(run)).toEqual({'model.01.weights.h5': ['no HDF5 signature: not a whole HDF5 file']});
	});

	it('a v3 superblock with the write-access flag set', async () => {
		const run = makeTempDir();
		put(run, path.join('checkpoints', 'model.01.weights.h5'), hdf5File({length: 900, version: 3, open: true}));
		const {scan} = await indexOf(run, null);
		expect(scan.checkpoints.map(c => [c.name, c.status])).toEqual([['model.01.weights.h5', 'partial']]);
	});
});

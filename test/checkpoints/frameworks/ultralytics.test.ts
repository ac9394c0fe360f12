import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {TRUNCATED} from '../../../src/checkpoints/layouts/layout.js';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {makeTempDir, put, removeTempDirs, zipArchive} from '../fixtures.js';
import {yoloCutOff, yoloRun, yoloTrain, type YoloRun} from './ultralytics-fixture.js';

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 2, 4, 9, 0, 0);
const MIN = 60_000;
const FITNESS = [0.2, 0.35, 0.3, 0.4, 0.38, 0.39];

/** Six epochs with save_period 2: epoch0, epoch2 and epoch4.pt; best.pt from epoch 3. */
function trained(): YoloRun {
	const run = yoloRun(makeTempDir(), 2);
	yoloTrain(
		run,
		2,
		FITNESS.map((fitness, epoch) => ({epoch, fitness, time: T0 + epoch * MIN})),
	);
	return run;
}

async function index(run: YoloRun, keep: number | null = null) {
	return buildIndex(await scanRunDir(run.runDir), {keep, now: T0 + 60 * MIN, disk: null});
}

describe('ultralytics layout', () => {
	it('reads weights/: epoch<N>.pt periodic, last.pt and best.pt; never deletes, whatever --keep says', async () => {
		const run = trained();
		const result = await index(run, 1);
		expect(result.layouts).toEqual(['ultralytics']);
		expect(result.checkpoints.map(c => [c.name, c.epoch, c.kind, c.status, c.retention])).toEqual([
			['epoch0.pt', 0, 'periodic', 'complete', 'keep'],
			['epoch2.pt', 2, 'periodic', 'complete', 'keep'],
			['best.pt', null, 'best', 'complete', 'protected'],
			['epoch4.pt', 4, 'periodic', 'complete', 'keep'],
			['last.pt', null, 'last', 'complete', 'protected'],
		]);
		expect(result.checkpoints.every(c => c.group === 'ultralytics:weights')).toBe(true);
		expect(result.retention.toPrune).toEqual([]);
		expect(result.retention.groups[0]).toMatchObject({rule: 'Ultralytics never deletes', keep: null, dir: 'weights'});
	});

	it.each(['half', 'empty'] as const)('last.pt written %s by a cut-off write_bytes is partial', async how => {
		const run = trained();
		const last = yoloCutOff(run, 'last.pt', how, T0 + 10 * MIN);
		const result = await index(run);
		const why = how === 'half' ? TRUNCATED : 'empty file: the save did not get to write it';
		expect(result.checkpoints.find(c => c.path === last)).toMatchObject({
			kind: 'last',
			status: 'partial',
			warnings: [`${why} (save_model writes it in place: the write was cut off)`],
		});
	});

	it('an epoch<N>.pt cut short is partial', async () => {
		const run = trained();
		const file = yoloCutOff(run, 'epoch6.pt', 'half', T0 + 10 * MIN);
		const result = await index(run);
		expect(result.checkpoints.find(c => c.path === file)).toMatchObject({epoch: 6, status: 'partial'});
	});

	it('last.pt outside a weights dir is not claimed', async () => {
		const root = makeTempDir();
		put(root, 'last.pt', zipArchive(100));
		const result = await buildIndex(await scanRunDir(root), {keep: null, now: T0, disk: null});
		expect(result.checkpoints.map(c => path.basename(c.path))).toEqual([]);
		expect(result.layouts).toEqual([]);
	});
});

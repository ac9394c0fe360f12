import path from 'node:path';
import {rmSync} from 'node:fs';
import {afterEach, describe, expect, it} from 'vitest';
import {TRUNCATED} from '../../../src/checkpoints/layouts/layout.js';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {makeTempDir, put, removeTempDirs, zipArchive} from '../fixtures.js';
import {d2Config, d2Save, d2Step, d2Truncated, periodic, TAG} from './detectron2-fixture.js';

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 2, 3, 9, 0, 0);
const MIN = 60_000;

/** Iterations 0–5999 with period 1000: saves at 999, 1999, … 5999, max_iter `maxIter`. */
function trained(maxToKeep: number | null, maxIter = 90_000): string {
	const run = makeTempDir();
	const p = periodic(run, 1000, maxIter, maxToKeep);
	for (let it = 999; it < Math.min(6000, maxIter); it += 1000) d2Step(p, it, T0 + it * 1000);
	return run;
}

async function index(run: string, keep: number | null = null) {
	return buildIndex(await scanRunDir(run), {keep, now: T0 + 600 * MIN, disk: null});
}

const model = (run: string, it: number): string => path.join(run, `model_${String(it).padStart(7, '0')}.pth`);

describe('detectron2 layout', () => {
	it('LazyConfig max_to_keep: the oldest periodic save goes next; last_checkpoint is not a checkpoint', async () => {
		const run = trained(3);
		d2Config(run, 3);
		const result = await index(run, 10);
		expect(result.layouts).toEqual(['detectron2']);
		expect(result.checkpoints.map(c => [c.name, c.step, c.kind, c.status, c.retention])).toEqual([
			['model_0003999.pth', 3999, 'periodic', 'complete', 'prune-next'],
			['model_0004999.pth', 4999, 'periodic', 'complete', 'keep'],
			['model_0005999.pth', 5999, 'periodic', 'complete', 'keep'],
		]);
		expect(result.retention.toPrune).toEqual([model(run, 3999)]);
		expect(result.retention.groups[0]).toMatchObject({
			rule: 'fvcore PeriodicCheckpointer max_to_keep 3',
			source: 'metadata',
			from: 'config.yaml train.checkpointer.max_to_keep',
			count: 3,
		});
	});

	it('DefaultTrainer (yacs config.yaml) sets no max_to_keep: never deletes without --keep', async () => {
		const run = trained(null);
		d2Config(run);
		const result = await index(run);
		expect(result.checkpoints.map(c => c.step)).toEqual([999, 1999, 2999, 3999, 4999, 5999]);
		expect(result.retention.toPrune).toEqual([]);
		expect(result.retention.groups[0]).toMatchObject({
			rule: 'fvcore PeriodicCheckpointer never deletes (max_to_keep unset, as in DefaultTrainer; --keep N)',
			keep: null,
			source: 'none',
		});
	});

	it('--keep N stands for max_to_keep N; model_final is never deleted', async () => {
		const run = trained(null, 6000);
		const result = await index(run, 2);
		const final = result.checkpoints.find(c => c.name === 'model_final.pth');
		expect(final).toMatchObject({kind: 'last', status: 'complete', retention: 'protected'});
		expect(result.retention.toPrune).toEqual([999, 1999, 2999, 3999, 4999].map(it => model(run, it)));
		expect(result.retention.groups[0]).toMatchObject({rule: 'fvcore PeriodicCheckpointer max_to_keep 2', count: 6});
	});

	it('a periodic file newer than last_checkpoint names is a save not yet tagged', async () => {
		const run = trained(3);
		const file = d2Save(run, 'model_0006999', T0 + 6999 * 1000, false);
		const result = await index(run, 3);
		expect(result.checkpoints.find(c => c.path === file)).toMatchObject({
			step: 6999,
			status: 'partial',
			warnings: [
				'newer than model_0005999.pth, which last_checkpoint names: the save has not tagged it, so it did not finish',
			],
		});
		expect(result.retention.toPrune).toEqual([model(run, 3999)]);
	});

	it('model_final written after the tag (no iteration in its name: by time) is not finished', async () => {
		const run = trained(3);
		const file = d2Save(run, 'model_final', T0 + 7000 * 1000, false);
		const result = await index(run, 3);
		expect(result.checkpoints.find(c => c.path === file)).toMatchObject({kind: 'last', status: 'partial'});
	});

	it('without last_checkpoint the newest save has not been tagged', async () => {
		const run = trained(3);
		rmSync(path.join(run, TAG));
		const result = await index(run, 3);
		expect(result.checkpoints.map(c => [c.step, c.status])).toEqual([
			[3999, 'complete'],
			[4999, 'complete'],
			[5999, 'partial'],
		]);
		expect(result.checkpoints.at(-1)?.warnings).toEqual([
			'no last_checkpoint: Checkpointer.save writes it after the file, so this save did not finish',
		]);
	});

	it('a torch.save cut off half way is truncated', async () => {
		const run = trained(3);
		const file = d2Truncated(run, 'model_0006999', T0 + 6999 * 1000);
		const result = await index(run, 3);
		const partial = result.checkpoints.find(c => c.path === file);
		expect(partial?.status).toBe('partial');
		expect(partial?.warnings).toContain(TRUNCATED);
	});

	it('last_checkpoint naming a missing file is a warning', async () => {
		const run = trained(3);
		rmSync(model(run, 5999));
		const result = await index(run, 3);
		expect(result.warnings).toContain('last_checkpoint names model_0005999.pth, which is not there');
	});

	it("another framework's last_checkpoint (a full path, as mmengine writes) is not taken for fvcore's", async () => {
		const run = makeTempDir();
		put(run, 'epoch_1.pth', zipArchive(100));
		put(run, TAG, path.join(run, 'epoch_1.pth'));
		const scan = await scanRunDir(run);
		expect(scan.layouts).not.toContain('detectron2');
		expect(scan.warnings).toEqual([]);
	});
});

import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {TRUNCATED} from '../../../src/checkpoints/layouts/layout.js';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {makeTempDir, removeTempDirs} from '../fixtures.js';
import {fairseqCutOff, fairseqSave, SAVE_DIR, type FairseqSave} from './fairseq-fixture.js';

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 2, 1, 9, 0, 0);
const MIN = 60_000;

/** Mid-epoch saves every 100 updates (epoch 1 ends at 250), keep_interval_updates 3 pruning as fairseq does. */
function trainedRun(): string {
	const run = makeTempDir();
	const saves: FairseqSave[] = [
		{epoch: 1, updates: 100, endOfEpoch: false, isBest: true, time: T0},
		{epoch: 1, updates: 200, endOfEpoch: false, time: T0 + MIN},
		{
			epoch: 1,
			updates: 250,
			endOfEpoch: true,
			isBest: true,
			top: {metric: 'loss', score: 3.5, tie: 2},
			time: T0 + 2 * MIN,
		},
		{epoch: 2, updates: 300, endOfEpoch: false, time: T0 + 3 * MIN},
		{epoch: 2, updates: 400, endOfEpoch: false, time: T0 + 4 * MIN},
		{epoch: 2, updates: 500, endOfEpoch: false, time: T0 + 5 * MIN},
	];
	for (const save of saves) fairseqSave(run, save, {keepIntervalUpdates: 3});
	return run;
}

async function index(run: string, keep: number | null) {
	return buildIndex(await scanRunDir(run), {keep, now: T0 + 60 * MIN, disk: null});
}

function table(checkpoints: Awaited<ReturnType<typeof index>>['checkpoints']) {
	return Object.fromEntries(
		checkpoints.map(c => [c.name, {step: c.step, epoch: c.epoch, kind: c.kind, status: c.status, mark: c.retention}]),
	);
}

describe('fairseq layout', () => {
	it('reads every series and prunes the oldest interval-updates checkpoint under keep_interval_updates', async () => {
		const run = trainedRun();
		const result = await index(run, 3);
		expect(result.layouts).toEqual(['fairseq']);
		expect(table(result.checkpoints)).toEqual({
			'checkpoint1.pt': {step: null, epoch: 1, kind: 'periodic', status: 'complete', mark: 'keep'},
			'checkpoint_best.pt': {step: null, epoch: null, kind: 'best', status: 'complete', mark: 'protected'},
			'checkpoint.best_loss_3.5002.pt': {step: null, epoch: null, kind: 'best', status: 'complete', mark: 'keep'},
			'checkpoint_2_300.pt': {step: 300, epoch: 2, kind: 'periodic', status: 'complete', mark: 'prune-next'},
			'checkpoint_2_400.pt': {step: 400, epoch: 2, kind: 'periodic', status: 'complete', mark: 'keep'},
			'checkpoint_2_500.pt': {step: 500, epoch: 2, kind: 'periodic', status: 'complete', mark: 'keep'},
			'checkpoint_last.pt': {step: null, epoch: null, kind: 'last', status: 'complete', mark: 'protected'},
		});
		const top = result.checkpoints.find(c => c.name === 'checkpoint.best_loss_3.5002.pt');
		expect(top?.metric).toEqual({name: 'loss', value: 3.5002});
		expect(result.retention.toPrune).toEqual([path.join(run, SAVE_DIR, 'checkpoint_2_300.pt')]);
		expect(result.retention.groups).toHaveLength(1);
		expect(result.retention.groups[0]).toMatchObject({
			dir: SAVE_DIR,
			rule: 'fairseq keep_interval_updates 3 (keep_last_epochs, keep_best_checkpoints not known: those files kept)',
			keep: 3,
			source: 'flag',
			count: 3,
		});
	});

	it('plans nothing without --keep (keep_interval_updates lives inside the checkpoint)', async () => {
		const result = await index(trainedRun(), null);
		expect(result.retention.toPrune).toEqual([]);
		expect(result.retention.groups[0]?.rule).toBe('fairseq keep_interval_updates unknown: keeps all (--keep N)');
	});

	it('a .tmp never renamed is a partial save, outside the rotation', async () => {
		const run = trainedRun();
		const tmp = fairseqCutOff(run, {epoch: 2, updates: 600, endOfEpoch: false, time: T0 + 6 * MIN}, 'rename');
		const result = await index(run, 3);
		expect(result.layouts).toEqual(['fairseq']);
		const partial = result.checkpoints.find(c => c.path === tmp);
		expect(partial).toMatchObject({name: 'checkpoint_2_600.pt.tmp', step: 600, epoch: 2, status: 'partial'});
		expect(partial?.warnings).toEqual([
			'torch_persistent_save renames its .tmp when done: still here, so the save did not finish',
		]);
		expect(result.retention.toPrune).toEqual([path.join(run, SAVE_DIR, 'checkpoint_2_300.pt')]);
	});

	it('a copy cut off leaves checkpoint_last.pt truncated', async () => {
		const run = trainedRun();
		const last = fairseqCutOff(run, {epoch: 2, updates: 600, endOfEpoch: false, time: T0 + 6 * MIN}, 'copy');
		const result = await index(run, 3);
		const partial = result.checkpoints.find(c => c.path === last);
		expect(partial).toMatchObject({name: 'checkpoint_last.pt', kind: 'last', status: 'partial', warnings: [TRUNCATED]});
		// The new checkpoint_2_600.pt was renamed whole: it counts, and two go.
		expect(result.retention.toPrune).toEqual(
			['checkpoint_2_300.pt', 'checkpoint_2_400.pt'].map(name => path.join(run, SAVE_DIR, name)),
		);
	});

	it('rotates each shard suffix on its own', async () => {
		const run = makeTempDir();
		for (const suffix of ['-shard0', '-shard1']) {
			for (const [i, updates] of [100, 200, 300].entries()) {
				fairseqSave(run, {epoch: 1, updates, endOfEpoch: false, time: T0 + i * MIN}, {suffix});
			}
		}
		const result = await index(run, 3);
		expect(result.retention.toPrune).toEqual(
			['checkpoint_1_100-shard0.pt', 'checkpoint_1_100-shard1.pt'].map(name => path.join(run, SAVE_DIR, name)),
		);
		expect(result.retention.groups[0]?.rule).toBe('fairseq keep_interval_updates 3');
		expect(result.checkpoints.filter(c => c.kind === 'last').map(c => c.name)).toEqual([
			'checkpoint_last-shard0.pt',
			'checkpoint_last-shard1.pt',
		]);
	});
});

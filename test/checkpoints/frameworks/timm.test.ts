import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {TRUNCATED} from '../../../src/checkpoints/layouts/layout.js';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {makeTempDir, put, removeTempDirs, zipArchive} from '../fixtures.js';
import {timmCutOff, timmEpoch, timmRecovery, timmRestart, timmRun, type TimmOptions} from './timm-fixture.js';

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 2, 2, 9, 0, 0);
const MIN = 60_000;
const TOP1 = [70, 75, 72, 80, 74];

/** Epochs 0–4 with max_history 3: 0 then 2 fall out, leaving 1, 3 and 4 (model_best = 3, last = 4). */
function trained(options: Partial<TimmOptions> = {}) {
	const run = makeTempDir();
	const state = timmRun(run, {checkpointHist: 3, evalMetric: 'top1', ...options});
	for (const [epoch, top1] of TOP1.entries()) timmEpoch(state, epoch, {loss: 2 - top1 / 100, top1}, T0 + epoch * MIN);
	return {run, state};
}

async function index(run: string, keep: number | null = null) {
	return buildIndex(await scanRunDir(run), {keep, now: T0 + 60 * MIN, disk: null});
}

function table(checkpoints: Awaited<ReturnType<typeof index>>['checkpoints']) {
	return Object.fromEntries(
		checkpoints.map(c => [
			c.name,
			{epoch: c.epoch, kind: c.kind, status: c.status, score: c.metric?.value ?? null, mark: c.retention},
		]),
	);
}

const file = (run: string, name: string): string => path.join(run, name);

describe('timm layout', () => {
	it('ranks checkpoint-<E> by summary.csv eval_top1 under args.yaml checkpoint_hist: the worst goes next', async () => {
		const {run} = trained();
		const result = await index(run, 7);
		expect(result.layouts).toEqual(['timm']);
		expect(table(result.checkpoints)).toEqual({
			'checkpoint-1.pth.tar': {epoch: 1, kind: 'periodic', status: 'complete', score: 75, mark: 'keep'},
			'checkpoint-3.pth.tar': {epoch: 3, kind: 'periodic', status: 'complete', score: 80, mark: 'keep'},
			'checkpoint-4.pth.tar': {epoch: 4, kind: 'periodic', status: 'complete', score: 74, mark: 'prune-next'},
			'model_best.pth.tar': {epoch: 3, kind: 'best', status: 'complete', score: null, mark: 'protected'},
			'last.pth.tar': {epoch: 4, kind: 'last', status: 'complete', score: null, mark: 'protected'},
		});
		expect(result.retention.toPrune).toEqual([file(run, 'checkpoint-4.pth.tar')]);
		expect(result.retention.groups[0]).toMatchObject({
			rule: 'timm top-3 by top1 (max)',
			keep: 3,
			source: 'metadata',
			from: 'args.yaml checkpoint_hist',
			count: 3,
		});
		expect(result.warnings).toContain(
			'--keep 7 not used for the timm (pytorch-image-models) checkpoints: args.yaml checkpoint_hist says 3, and the framework rotates by that',
		);
	});

	it('without an eval loader ranks by train loss, lower better', async () => {
		const {run} = trained({hasEval: false, evalMetric: 'top1'});
		const result = await index(run);
		expect(result.retention.groups[0]?.rule).toBe('timm top-3 by loss (min)');
		// train_loss = 3 − top1/100: the highest train loss is the worst.
		expect(result.checkpoints.find(c => c.name === 'checkpoint-4.pth.tar')?.metric).toEqual({
			name: 'loss',
			value: 2.26,
		});
		expect(result.retention.toPrune).toEqual([file(run, 'checkpoint-4.pth.tar')]);
	});

	it('without args.yaml: --keep N, and the metric train.py ranks by default', async () => {
		const {run} = trained({noArgs: true});
		const result = await index(run, 3);
		expect(result.retention.groups[0]).toMatchObject({rule: 'timm top-3 by top1 (max)', source: 'flag'});
		expect(result.retention.toPrune).toEqual([file(run, 'checkpoint-4.pth.tar')]);
	});

	it('after a restart the saver forgets the older checkpoints: only the new process ranks and deletes', async () => {
		const {run, state} = trained();
		timmRestart(state);
		for (const [i, top1] of [81, 76, 79].entries()) {
			timmEpoch(state, 5 + i, {loss: 1, top1}, T0 + (10 + i) * MIN);
		}
		const result = await index(run);
		expect(result.retention.toPrune).toEqual([file(run, 'checkpoint-6.pth.tar')]);
		const old = result.checkpoints.find(c => c.name === 'checkpoint-1.pth.tar');
		expect(old).toMatchObject({metric: null, retention: 'keep'});
		expect(old?.warnings).toEqual(['written before the run restarted at epoch 5: the saver no longer tracks it']);
		expect(result.retention.groups[0]?.count).toBe(3);
	});

	it('recovery files: the next recovery save deletes the older of the newest two', async () => {
		const {run, state} = trained();
		for (const [i, batch] of [100, 200, 300].entries()) timmRecovery(state, 5, batch, T0 + (20 + i) * MIN);
		const result = await index(run);
		const recovery = result.checkpoints.filter(c => c.name.startsWith('recovery-'));
		expect(recovery.map(c => [c.name, c.epoch, c.kind, c.retention])).toEqual([
			['recovery-5-200.pth.tar', 5, 'periodic', 'prune-next'],
			['recovery-5-300.pth.tar', 5, 'periodic', 'keep'],
		]);
		expect(result.retention.toPrune).toEqual([file(run, 'checkpoint-4.pth.tar'), file(run, 'recovery-5-200.pth.tar')]);
		expect(result.retention.groups[0]?.rule).toBe('timm top-3 by top1 (max); recovery: newest 2 kept');
	});

	it.each([
		['tmp.pth.tar', 'last.pth.tar'],
		['recovery_tmp.pth.tar', 'recovery-<epoch>-<batch>.pth.tar'],
	] as const)('%s left behind is a partial save', async (name, target) => {
		const {run, state} = trained();
		const tmp = timmCutOff(state, name, T0 + 30 * MIN);
		const result = await index(run);
		expect(result.layouts).toEqual(['timm']);
		expect(result.checkpoints.find(c => c.path === tmp)).toMatchObject({
			name,
			status: 'partial',
			warnings: [`${name} is renamed to ${target} when the save is done: still here, so the save did not finish`],
		});
		expect(result.retention.toPrune).toEqual([file(run, 'checkpoint-4.pth.tar')]);
	});

	it('a checkpoint copy (copy2 where hard links fail) cut short is partial and not ranked', async () => {
		const {run} = trained();
		put(run, 'checkpoint-5.pth.tar', zipArchive(700).subarray(0, 300));
		const result = await index(run);
		expect(result.checkpoints.find(c => c.name === 'checkpoint-5.pth.tar')).toMatchObject({
			status: 'partial',
			warnings: [TRUNCATED, 'no top1 for epoch 5 in summary.csv nor in the checkpoint: not ranked'],
		});
		expect(result.retention.toPrune).toEqual([file(run, 'checkpoint-4.pth.tar')]);
	});
});

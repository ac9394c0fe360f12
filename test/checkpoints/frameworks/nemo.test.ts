import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {link, makeTempDir, put, removeTempDirs, zipArchive} from '../fixtures.js';
import {
	NEMO_DIR,
	nemo1Name,
	nemo2Name,
	nemoHalfDeleted,
	nemoLinkLast,
	nemoOrphanMarker,
	nemoSave,
} from './nemo-fixture.js';

// NeMo's ModelCheckpoint is Lightning's top-k (the worst score goes when a better one is saved) with an
// `<name>-unfinished` marker around every save and every deletion; `-last` saves are outside the rotation.

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const MIN = 60_000;

const names = (paths: readonly string[]): string[] => paths.map(p => path.basename(p));

async function index(run: string, keep: number | null) {
	return buildIndex(await scanRunDir(run), {keep, now: T0 + 60 * MIN, disk: null});
}

describe('NeMo layout', () => {
	it('NeMo 2 distributed dirs: steps, val_loss as the metric, -last link protected, the worst goes next', async () => {
		const run = makeTempDir();
		nemoSave(run, {stem: nemo2Name(2.1, 1000), time: T0, form: 'dist'});
		nemoSave(run, {stem: nemo2Name(1.95, 2000), time: T0 + MIN, form: 'dist'});
		nemoSave(run, {stem: nemo2Name(2.4, 3000), time: T0 + 2 * MIN, form: 'dist'});
		nemoLinkLast(run, nemo2Name(2.4, 3000));
		const built = await index(run, 3);
		expect(built.layouts).toEqual(['nemo']);
		expect(built.checkpoints.map(c => [c.name, c.step, c.kind, c.status, c.metric, c.retention])).toEqual([
			[nemo2Name(2.1, 1000), 1000, 'periodic', 'complete', {name: 'val_loss', value: 2.1}, 'keep'],
			[nemo2Name(1.95, 2000), 2000, 'periodic', 'complete', {name: 'val_loss', value: 1.95}, 'keep'],
			[nemo2Name(2.4, 3000), 3000, 'periodic', 'complete', {name: 'val_loss', value: 2.4}, 'prune-next'],
			[`${nemo2Name(2.4, 3000)}-last`, 3000, 'last', 'complete', null, 'protected'],
		]);
		expect(built.checkpoints[0]?.name).toBe('llama--val_loss=2.10-step=1000-consumed_samples=2000.0');
		expect(names(built.retention.toPrune)).toEqual(['llama--val_loss=2.40-step=3000-consumed_samples=6000.0']);
		expect(built.retention.groups).toMatchObject([
			{dir: NEMO_DIR, rule: 'NeMo top-3 by val_loss (min, guessed)', keep: 3, source: 'flag', count: 3},
		]);
	});

	it('NeMo 1 .ckpt files with EMA copies: epochs, a -last file; the worst and its -EMA copy go next', async () => {
		const run = makeTempDir();
		nemoSave(run, {stem: nemo1Name(1.9, 0), time: T0, form: 'file', ema: true});
		nemoSave(run, {stem: nemo1Name(1.7, 1), time: T0 + MIN, form: 'file', ema: true});
		nemoSave(run, {stem: nemo1Name(1.7, 1, true), time: T0 + MIN, form: 'file'});
		put(run, `${NEMO_DIR}/megatron_gpt.nemo`, 100); // the .nemo export: not a checkpoint of the rotation
		const built = await index(run, 2);
		expect(built.layouts).toEqual(['nemo']);
		expect(built.checkpoints.map(c => [c.name, c.epoch, c.step, c.kind, c.retention])).toEqual([
			['megatron_gpt--val_loss=1.9000-epoch=0-EMA.ckpt', 0, null, 'periodic', 'prune-next'],
			['megatron_gpt--val_loss=1.9000-epoch=0.ckpt', 0, null, 'periodic', 'prune-next'],
			['megatron_gpt--val_loss=1.7000-epoch=1-EMA.ckpt', 1, null, 'periodic', 'keep'],
			['megatron_gpt--val_loss=1.7000-epoch=1-last.ckpt', 1, null, 'last', 'protected'],
			['megatron_gpt--val_loss=1.7000-epoch=1.ckpt', 1, null, 'periodic', 'keep'],
		]);
		expect(names(built.retention.toPrune)).toEqual([
			'megatron_gpt--val_loss=1.9000-epoch=0.ckpt',
			'megatron_gpt--val_loss=1.9000-epoch=0-EMA.ckpt',
		]);
		expect(built.retention.groups[0]).toMatchObject({rule: 'NeMo top-2 by val_loss (min, guessed)', count: 2});
	});

	describe('partial saves', () => {
		it('an -unfinished marker beside a .ckpt file: partial, not ranked', async () => {
			const run = makeTempDir();
			nemoSave(run, {stem: nemo1Name(2.0, 0), time: T0, form: 'file'});
			nemoSave(run, {stem: nemo1Name(1.5, 1), time: T0 + MIN, form: 'file', finished: false});
			const built = await index(run, 1);
			const cut = built.checkpoints.find(c => c.epoch === 1);
			expect(cut).toMatchObject({name: 'megatron_gpt--val_loss=1.5000-epoch=1.ckpt', status: 'partial'});
			expect(cut?.warnings).toEqual([
				'megatron_gpt--val_loss=1.5000-epoch=1-unfinished is there: the save did not finish (or it is being deleted); NeMo deletes it on restart',
			]);
			expect(names(built.retention.toPrune)).toEqual(['megatron_gpt--val_loss=2.0000-epoch=0.ckpt']);
			expect(built.checkpoints.map(c => c.name)).not.toContain('megatron_gpt--val_loss=1.5000-epoch=1-unfinished');
		});

		it('an -unfinished marker beside a distributed checkpoint directory: partial', async () => {
			const run = makeTempDir();
			nemoSave(run, {stem: nemo2Name(1.8, 500), time: T0, form: 'dist', finished: false});
			const built = await index(run, 3);
			expect(built.layouts).toEqual(['nemo']);
			expect(built.checkpoints.map(c => [c.name, c.step, c.status])).toEqual([
				['llama--val_loss=1.80-step=500-consumed_samples=1000.0', 500, 'partial'],
			]);
		});

		it('the marker _remove_checkpoint sets while deleting: the half-deleted directory is partial', async () => {
			const run = makeTempDir();
			const doomed = nemoSave(run, {stem: nemo2Name(2.5, 100), time: T0, form: 'dist'});
			nemoSave(run, {stem: nemo2Name(1.5, 200), time: T0 + MIN, form: 'dist'});
			nemoHalfDeleted(run, doomed);
			const built = await index(run, 1);
			expect(built.checkpoints.map(c => [c.step, c.status, c.retention])).toEqual([
				[100, 'partial', 'keep'],
				[200, 'complete', 'prune-next'],
			]);
		});

		it('a .ckpt file without its zip end record and no marker (copied in place) is partial', async () => {
			const run = makeTempDir();
			const whole = zipArchive(200);
			put(run, `${NEMO_DIR}/${nemo1Name(1.1, 4)}.ckpt`, whole.subarray(0, whole.length - 30));
			const [only] = (await index(run, 3)).checkpoints;
			expect(only).toMatchObject({epoch: 4, status: 'partial', warnings: ['truncated: no zip end record']});
		});

		it('a -last link whose target is gone is partial', async () => {
			const run = makeTempDir();
			nemoSave(run, {stem: nemo2Name(1.2, 900), time: T0, form: 'dist'});
			link(run, `${NEMO_DIR}/${nemo2Name(1.3, 800)}-last`, nemo2Name(1.3, 800));
			const last = (await index(run, 3)).checkpoints.find(c => c.kind === 'last');
			expect(last).toMatchObject({step: 800, status: 'partial'});
			expect(last?.warnings).toEqual([`dangling symlink to ${nemo2Name(1.3, 800)}`]);
		});
	});

	it('a marker with no checkpoint beside it is a warning, never a checkpoint (nor a generic one)', async () => {
		const run = makeTempDir();
		nemoSave(run, {stem: nemo2Name(1.4, 300), time: T0, form: 'dist'});
		nemoOrphanMarker(run, nemo2Name(1.3, 400));
		const built = await index(run, 3);
		expect(built.layouts).toEqual(['nemo']);
		expect(built.checkpoints.map(c => c.name)).toEqual(['llama--val_loss=1.40-step=300-consumed_samples=600.0']);
		expect(built.warnings).toContain(
			'checkpoints/llama--val_loss=1.30-step=400-consumed_samples=800.0-unfinished: unfinished-save marker without its checkpoint',
		);
	});
});

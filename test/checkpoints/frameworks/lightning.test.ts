import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {makeTempDir, removeTempDirs} from '../fixtures.js';
import {
	CKPT_DIR,
	cliConfig,
	deepspeedSave,
	fsdpShardedSave,
	hpcSave,
	linkLast,
	onExceptionSave,
	saveLastCopy,
	saveTopK,
	type Field,
} from './lightning-fixture.js';

// ModelCheckpoint's top-k deletes the WORST score once k are kept; last, hpc and on_exception saves are outside it.
// Each fixture is the checkpoints dir between two saves, as Lightning's own code leaves it.

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const MIN = 60_000;

function fields(epoch: number, step: number, metric?: Field): Field[] {
	const base: Field[] = [
		['epoch', String(epoch)],
		['step', String(step)],
	];
	return metric === undefined ? base : [...base, metric];
}

const names = (paths: readonly string[]): string[] => paths.map(p => path.basename(p));

async function index(run: string, keep: number | null = null) {
	return buildIndex(await scanRunDir(run), {keep, now: T0 + 60 * MIN, disk: null});
}

describe('Lightning layout', () => {
	it('top-3 by val_loss from config.yaml: the worst score goes next, not the oldest; last/hpc/exception kept', async () => {
		const run = makeTempDir();
		cliConfig(run, {monitor: 'val_loss', mode: 'min', save_top_k: 3});
		saveTopK(run, {fields: fields(0, 100, ['val_loss', '0.50']), time: T0});
		saveTopK(run, {fields: fields(1, 200, ['val_loss', '0.91']), time: T0 + MIN});
		const newest = saveTopK(run, {fields: fields(2, 300, ['val_loss', '0.32']), time: T0 + 2 * MIN});
		linkLast(newest);
		onExceptionSave(run, T0 + 3 * MIN);
		hpcSave(run, 1, T0 + 4 * MIN);

		const built = await index(run, 5);
		expect(built.layouts).toEqual(['lightning']);
		const rows = built.checkpoints.map(c => [c.name, c.epoch, c.step, c.kind, c.status, c.metric, c.retention]);
		expect(rows).toEqual([
			['epoch=0-step=100-val_loss=0.50.ckpt', 0, 100, 'periodic', 'complete', {name: 'val_loss', value: 0.5}, 'keep'],
			[
				'epoch=1-step=200-val_loss=0.91.ckpt',
				1,
				200,
				'periodic',
				'complete',
				{name: 'val_loss', value: 0.91},
				'prune-next',
			],
			['epoch=2-step=300-val_loss=0.32.ckpt', 2, 300, 'periodic', 'complete', {name: 'val_loss', value: 0.32}, 'keep'],
			['last.ckpt', 2, 300, 'last', 'complete', null, 'protected'],
			['on_exception.ckpt', null, null, 'emergency', 'complete', null, 'protected'],
			['hpc_ckpt_1.ckpt', null, null, 'manual', 'complete', null, 'protected'],
		]);
		expect(names(built.retention.toPrune)).toEqual(['epoch=1-step=200-val_loss=0.91.ckpt']);
		const group = built.retention.groups.find(g => g.dir === CKPT_DIR);
		expect(group).toMatchObject({
			rule: 'Lightning top-3 by val_loss (min)',
			keep: 3,
			source: 'metadata',
			from: 'lightning_logs/version_0/config.yaml save_top_k',
			count: 3,
		});
		expect(built.warnings).toContain(
			'--keep 5 not used for the PyTorch Lightning checkpoints in lightning_logs/version_0/checkpoints: lightning_logs/version_0/config.yaml save_top_k says 3, and the framework rotates by that',
		);
	});

	it('mode max from a model_checkpoint key: the lowest val_acc goes next', async () => {
		const run = makeTempDir();
		cliConfig(run, {monitor: 'val_acc', mode: 'max', save_top_k: 2}, 'model_checkpoint');
		saveTopK(run, {fields: fields(0, 50, ['val_acc', '0.71']), time: T0});
		saveTopK(run, {fields: fields(1, 100, ['val_acc', '0.64']), time: T0 + MIN});
		const built = await index(run);
		expect(names(built.retention.toPrune)).toEqual(['epoch=1-step=100-val_acc=0.64.ckpt']);
		expect(built.retention.groups[0]).toMatchObject({rule: 'Lightning top-2 by val_acc (max)', keep: 2});
	});

	it('without config.yaml: --keep is k and the mode is guessed from the metric name', async () => {
		const run = makeTempDir();
		saveTopK(run, {fields: fields(0, 10, ['val_loss', '1.20']), time: T0});
		saveTopK(run, {fields: fields(1, 20, ['val_loss', '0.80']), time: T0 + MIN});
		saveTopK(run, {fields: fields(2, 30, ['val_loss', '0.95']), time: T0 + 2 * MIN});
		const built = await index(run, 2);
		expect(names(built.retention.toPrune)).toEqual([
			'epoch=0-step=10-val_loss=1.20.ckpt',
			'epoch=2-step=30-val_loss=0.95.ckpt',
		]);
		expect(built.retention.groups[0]).toMatchObject({
			rule: 'Lightning top-2 by val_loss (min, guessed)',
			keep: 2,
			source: 'flag',
		});
	});

	it('monitor=None: the default {epoch}-{step} names, -v1 on a taken name; the newest k are kept', async () => {
		const run = makeTempDir();
		saveTopK(run, {fields: fields(0, 100), time: T0});
		saveTopK(run, {fields: fields(0, 100), time: T0 + MIN}); // a rerun in the same dir: -v1
		saveTopK(run, {fields: fields(1, 200), time: T0 + 2 * MIN});
		saveLastCopy(run, T0 + 2 * MIN);
		const built = await index(run, 2);
		expect(built.checkpoints.map(c => [c.name, c.step, c.kind, c.metric, c.retention])).toEqual([
			['epoch=0-step=100.ckpt', 100, 'periodic', null, 'prune-next'],
			['epoch=0-step=100-v1.ckpt', 100, 'periodic', null, 'prune-next'],
			['epoch=1-step=200.ckpt', 200, 'periodic', null, 'keep'],
			['last.ckpt', null, 'last', null, 'protected'],
		]);
		expect(built.retention.groups[0]?.rule).toBe('Lightning save_top_k 2');
	});

	it('monitor: null, save_top_k 1 in config.yaml: the next save deletes the previous one', async () => {
		const run = makeTempDir();
		cliConfig(run, {monitor: null, save_top_k: 1});
		saveTopK(run, {fields: fields(3, 400), time: T0});
		const built = await index(run);
		expect(names(built.retention.toPrune)).toEqual(['epoch=3-step=400.ckpt']);
		expect(built.retention.groups[0]).toMatchObject({
			rule: 'Lightning save_top_k 1, no monitor: each save replaces the last',
			keep: 1,
			source: 'metadata',
		});
	});

	it('save_top_k -1 keeps every checkpoint, whatever --keep says', async () => {
		const run = makeTempDir();
		cliConfig(run, {monitor: 'val_loss', save_top_k: -1});
		for (const [i, loss] of ['0.9', '0.8', '0.7'].entries()) {
			saveTopK(run, {fields: fields(i, (i + 1) * 10, ['val_loss', loss]), time: T0 + i * MIN});
		}
		const built = await index(run, 1);
		expect(built.retention.toPrune).toEqual([]);
		expect(built.retention.groups[0]).toMatchObject({rule: 'Lightning save_top_k -1: keeps all', keep: null});
	});

	it('.ckpt files that are no torch.save archive: one warning names the newest, the others counted', async () => {
		const run = makeTempDir();
		for (const epoch of [0, 1, 2]) saveTopK(run, {fields: fields(epoch, (epoch + 1) * 100), time: T0 + epoch * MIN});
		const built = await index(run);
		expect(built.warnings.filter(w => w.includes('ModelCheckpoint state'))).toEqual([
			`${CKPT_DIR}/epoch=2-step=300.ckpt: ModelCheckpoint state not read (a zip without data.pkl: not a torch.save archive); 2 older .ckpt not read either`,
		]);
	});

	it('two ModelCheckpoint callbacks in config.yaml: nothing declared, with a warning', async () => {
		const run = makeTempDir();
		cliConfig(run, {monitor: 'val_loss', save_top_k: 2});
		const file = path.join(run, 'lightning_logs/version_0/config.yaml');
		const text = readFileSync(file, 'utf8').replace(
			'ckpt_path: null',
			'model_checkpoint:\n  monitor: val_acc\n  save_top_k: 1\nckpt_path: null',
		);
		writeFileSync(file, text);
		saveTopK(run, {fields: fields(0, 10, ['val_loss', '0.5']), time: T0});
		const built = await index(run);
		expect(built.retention.groups[0]).toMatchObject({keep: null, source: 'none'});
		expect(built.warnings).toContain(
			'lightning_logs/version_0/config.yaml: 2 ModelCheckpoint callbacks: cannot tell which one wrote these',
		);
	});

	it('a config.yaml that is not YAML is named without its text, and prints no parser warning', async () => {
		const run = makeTempDir();
		cliConfig(run, {monitor: 'val_loss', save_top_k: 2});
		saveTopK(run, {fields: fields(0, 10, ['val_loss', '0.5']), time: T0});
		const file = path.join(run, 'lightning_logs/version_0/config.yaml');
		const warned: string[] = [];
		const onWarning = (warning: Error) => warned.push(warning.message);
		process.on('warning', onWarning);
		try {
			writeFileSync(file, '%SECRET-DIRECTIVE\n---\nmodel: x\n');
			await index(run);
			writeFileSync(file, 'trainer: *SECRET_ALIAS\n');
			const built = await index(run);
			expect(built.warnings).toContain('lightning_logs/version_0/config.yaml: not YAML (not parsable)');
			expect(built.warnings.join('\n')).not.toContain('SECRET');
			// process.emitWarning is asynchronous: one turn of the event loop lets a warning out before the check.
			await new Promise(resolve => setImmediate(resolve));
			expect(warned.join('\n')).not.toContain('SECRET');
		} finally {
			process.off('warning', onWarning);
		}
	});

	it('DeepSpeed and sharded FSDP .ckpt directories are one Lightning checkpoint each', async () => {
		const run = makeTempDir();
		deepspeedSave(run, 'epoch=0-step=100.ckpt', true);
		fsdpShardedSave(run, 'epoch=1-step=200.ckpt', true);
		const built = await index(run);
		expect(built.layouts).toEqual(['lightning']);
		expect(built.checkpoints.map(c => [c.name, c.step, c.status, c.warnings])).toEqual([
			['epoch=0-step=100.ckpt', 100, 'complete', []],
			['epoch=1-step=200.ckpt', 200, 'complete', []],
		]);
	});

	describe('partial saves', () => {
		it('a .ckpt file without its zip end record (copied in place, cut off) is partial and not ranked', async () => {
			const run = makeTempDir();
			saveTopK(run, {fields: fields(0, 10, ['val_loss', '0.5']), time: T0});
			saveTopK(run, {fields: fields(1, 20, ['val_loss', '0.9']), time: T0 + MIN}, 30);
			const built = await index(run, 1);
			const cut = built.checkpoints.find(c => c.step === 20);
			expect(cut).toMatchObject({status: 'partial', warnings: ['truncated: no zip end record'], retention: 'keep'});
			expect(names(built.retention.toPrune)).toEqual(['epoch=0-step=10-val_loss=0.5.ckpt']);
		});

		it('a DeepSpeed .ckpt directory without `latest` is partial', async () => {
			const run = makeTempDir();
			deepspeedSave(run, 'epoch=0-step=100.ckpt', false);
			const [only] = (await index(run)).checkpoints;
			expect(only).toMatchObject({name: 'epoch=0-step=100.ckpt', status: 'partial'});
			expect(only?.warnings).toEqual(['DeepSpeed checkpoint without `latest` (written last): the save did not finish']);
		});

		it('a sharded .ckpt directory with .metadata but no meta.pt is partial', async () => {
			const run = makeTempDir();
			fsdpShardedSave(run, 'epoch=0-step=100.ckpt', false);
			const [only] = (await index(run)).checkpoints;
			expect(only).toMatchObject({name: 'epoch=0-step=100.ckpt', status: 'partial'});
			expect(only?.warnings).toEqual([
				'sharded checkpoint without meta.pt (written after the shards): the save did not finish',
			]);
		});

		it('a last.ckpt link whose target was deleted is partial', async () => {
			const run = makeTempDir();
			const gone = path.join(run, CKPT_DIR, 'epoch=0-step=5.ckpt');
			saveTopK(run, {fields: fields(1, 10), time: T0});
			linkLast(gone);
			const last = (await index(run)).checkpoints.find(c => c.name === 'last.ckpt');
			expect(last).toMatchObject({kind: 'last', status: 'partial', step: 5, epoch: 0});
			expect(last?.warnings).toEqual(['dangling symlink to epoch=0-step=5.ckpt: its target was deleted']);
		});
	});
});

import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import type {ScanResult} from '../../../src/core/types.js';
import {makeTempDir, removeTempDirs} from '../fixtures.js';
import {titanJobConfigJson, titanLastSaveHf, titanSave, titanToml} from './torchtitan-fixture.js';

// torchtitan's CheckpointManager: step-<N>/ DCP saves in {dump_folder}/checkpoint, .metadata written last;
// _purge_stale_checkpoints keeps the newest keep_latest_k step-<N> names after each save, finished or not.

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const MIN = 60_000;

function rows(scan: ScanResult): [string, number | null, string, string, readonly string[]][] {
	return scan.checkpoints.map(c => [c.name, c.step, c.status, c.kind, c.warnings]);
}

function savedRun(steps: readonly number[]): string {
	const run = makeTempDir();
	for (const [i, step] of steps.entries()) titanSave(run, step, {time: T0 + i * MIN});
	return run;
}

describe('torchtitan layout', () => {
	it("keep_latest_k from the run's TOML config: the next save purges the oldest beyond it", async () => {
		const run = savedRun([100, 200, 300, 400, 500]);
		titanToml(run, {keepLatestK: 3});
		const scan = await scanRunDir(run);
		expect(scan.layouts).toEqual(['torchtitan']);
		expect(rows(scan)).toEqual(
			[100, 200, 300, 400, 500].map(step => [`step-${step}`, step, 'complete', 'periodic', []]),
		);
		const index = buildIndex(scan, {keep: null, now: T0 + 10 * MIN, disk: null});
		const dir = path.join(run, 'checkpoint');
		expect(index.retention.toPrune).toEqual(['step-100', 'step-200', 'step-300'].map(name => path.join(dir, name)));
		expect(index.retention.groups).toMatchObject([
			{
				layout: 'torchtitan',
				framework: 'torchtitan',
				dir: 'checkpoint',
				rule: 'torchtitan keep_latest_k 3',
				keep: 3,
				source: 'metadata',
				from: 'llama3_debug.toml [checkpoint] keep_latest_k',
				count: 5,
			},
		]);
	});

	it('an unfinished step counts toward keep_latest_k (the purge sorts every step-<N> name)', async () => {
		const run = savedRun([100, 200, 300]);
		titanSave(run, 400, {stage: 'shards', time: T0 + 3 * MIN}); // async save still writing
		titanToml(run, {keepLatestK: 2});
		const index = buildIndex(await scanRunDir(run), {keep: null, now: T0 + 10 * MIN, disk: null});
		expect(index.checkpoints.map(c => [c.name, c.status, c.retention])).toEqual([
			['step-100', 'complete', 'prune-next'],
			['step-200', 'complete', 'prune-next'],
			['step-300', 'complete', 'prune-next'],
			['step-400', 'partial', 'keep'],
		]);
		expect(index.retention.groups[0]?.count).toBe(4);
	});

	it("the saved job config's keep_latest_k wins over --keep, with a warning", async () => {
		const run = savedRun([10, 20, 30]);
		titanJobConfigJson(run, 2);
		const index = buildIndex(await scanRunDir(run), {keep: 5, now: T0 + 10 * MIN, disk: null});
		expect(index.layouts).toEqual(['torchtitan']);
		expect(index.retention.groups[0]).toMatchObject({rule: 'torchtitan keep_latest_k 2', keep: 2, source: 'metadata'});
		expect(index.retention.toPrune).toEqual(['step-10', 'step-20'].map(name => path.join(run, 'checkpoint', name)));
		expect(index.warnings).toContain(
			'--keep 5 not used for the torchtitan checkpoints in checkpoint: job_config.json checkpoint.keep_latest_k says 2, and the framework rotates by that',
		);
	});

	it("a config without keep_latest_k means torchtitan's default, 10", async () => {
		const run = savedRun([100, 200]);
		titanToml(run);
		const index = buildIndex(await scanRunDir(run), {keep: null, now: T0 + 10 * MIN, disk: null});
		expect(index.retention.groups[0]).toMatchObject({
			rule: 'torchtitan keep_latest_k 10',
			from: 'llama3_debug.toml [checkpoint] keep_latest_k (not set: default 10)',
			toPrune: [],
		});
	});

	it('keep_latest_k = 0 keeps all', async () => {
		const run = savedRun([100, 200, 300]);
		titanToml(run, {keepLatestK: 0});
		const index = buildIndex(await scanRunDir(run), {keep: null, now: T0 + 10 * MIN, disk: null});
		expect(index.retention.groups[0]).toMatchObject({
			rule: 'torchtitan keep_latest_k: keeps all',
			keep: null,
			source: 'metadata',
		});
		expect(index.retention.toPrune).toEqual([]);
	});

	it.each([
		['created', 'empty: the save has not written anything yet'],
		['shards', 'shards without .metadata: still being written or cut off'],
		['metadata-tmp', '.metadata.tmp without .metadata: DCP did not finish the save'],
	] as const)('partial: a DCP save stopped at "%s"', async (stage, why) => {
		const run = savedRun([100]);
		titanSave(run, 200, {stage});
		titanToml(run, {keepLatestK: 5});
		const scan = await scanRunDir(run);
		expect(scan.layouts).toEqual(['torchtitan']);
		expect(rows(scan)).toEqual([
			['step-100', 100, 'complete', 'periodic', []],
			['step-200', 200, 'partial', 'periodic', [why]],
		]);
	});

	it('the last step in Hugging Face form: complete with its index, partial while only sharded/ exists', async () => {
		const run = savedRun([100]);
		titanLastSaveHf(run, 150, true);
		titanLastSaveHf(run, 200, false);
		titanToml(run, {keepLatestK: 5});
		expect(rows(await scanRunDir(run))).toEqual([
			['step-100', 100, 'complete', 'periodic', []],
			['step-150', 150, 'complete', 'last', []],
			[
				'step-200',
				200,
				'partial',
				'last',
				['sharded/ without model.safetensors.index.json: the Hugging Face consolidation did not finish'],
			],
		]);
	});

	it("without a config, step-<N> in torchtitan's default checkpoint/ folder is torchtitan's, keep_latest_k from --keep", async () => {
		const bare = savedRun([100, 200, 300]);
		const scan = await scanRunDir(bare);
		expect(scan.layouts).toEqual(['torchtitan']);
		const unknown = buildIndex(scan, {keep: null, now: T0 + 10 * MIN, disk: null});
		expect(unknown.retention.groups[0]?.rule).toBe('torchtitan keep_latest_k unknown: keeps all (--keep N)');
		const flagged = buildIndex(scan, {keep: 2, now: T0 + 10 * MIN, disk: null});
		expect(flagged.retention.groups[0]).toMatchObject({rule: 'torchtitan keep_latest_k 2', source: 'flag'});
		expect(flagged.retention.toPrune.map(p => p.split('/').at(-1))).toEqual(['step-100', 'step-200']);
	});

	it('with a config naming another folder, step-<N> DCP dirs stay with the dcp layout', async () => {
		const elsewhere = savedRun([100, 200]);
		titanToml(elsewhere, {keepLatestK: 3, folder: 'ckpt'});
		expect((await scanRunDir(elsewhere)).layouts).toEqual(['dcp']);
	});

	it('a config naming ./checkpoints/ claims the saves there', async () => {
		const run = makeTempDir();
		titanSave(run, 100, {folder: 'checkpoints'});
		titanToml(run, {keepLatestK: 3, folder: './checkpoints/'});
		const scan = await scanRunDir(run);
		expect(scan.layouts).toEqual(['torchtitan']);
		expect(scan.groups.map(g => [g.dir, g.declared?.keep])).toEqual([['checkpoints', 3]]);
	});
});

import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import type {ScanResult} from '../../../src/core/types.js';
import {makeTempDir, mkdir, put, removeTempDirs, zipArchive} from '../fixtures.js';
import {
	distIteration,
	iterName,
	legacyIteration,
	legacyRun,
	rankDirName,
	TRACKER,
	writeTracker,
} from './megatron-fixture.js';

// Megatron-LM's save directory: iter_<7 digits>/ per save and latest_checkpointed_iteration.txt written last, after
// every rank (checkpointing.py save_checkpoint / iter_finalize_fn). It deletes nothing by default.

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const MIN = 60_000;

type Row = [name: string, step: number | null, status: string, kind: string, warnings: readonly string[]];

function rows(scan: ScanResult): Row[] {
	return scan.checkpoints.map(c => [c.name, c.step, c.status, c.kind, c.warnings]);
}

describe('Megatron-LM layout', () => {
	it('reads iterations up to the tracker as complete, and keeps everything (Megatron never deletes)', async () => {
		const run = makeTempDir();
		const save = path.join(run, 'checkpoints');
		const dirs = legacyRun(save, [100, 200, 300], T0, {tp: 2, pp: 2, distOptim: true});
		const scan = await scanRunDir(run);
		expect(scan.layouts).toEqual(['megatron']);
		expect(scan.warnings).toEqual([]);
		expect(rows(scan)).toEqual([
			['iter_0000100', 100, 'complete', 'unknown', []],
			['iter_0000200', 200, 'complete', 'unknown', []],
			['iter_0000300', 300, 'complete', 'unknown', []],
		]);
		expect(scan.checkpoints.map(c => c.path)).toEqual(dirs);
		const index = buildIndex(scan, {keep: 2, now: T0 + 10 * MIN, disk: null});
		expect(index.retention.toPrune).toEqual([]);
		expect(index.checkpoints.map(c => c.retention)).toEqual(['keep', 'keep', 'keep']);
		expect(index.retention.groups).toMatchObject([
			{
				layout: 'megatron',
				framework: 'Megatron-LM',
				dir: 'checkpoints',
				rule: 'Megatron never deletes (unless --save-retain-interval, which the run dir does not record)',
				keep: null,
				source: 'none',
				toPrune: [],
			},
		]);
	});

	it('partial: an iteration newer than the tracker is still being written (or was cut off)', async () => {
		const run = makeTempDir();
		legacyRun(run, [100, 200], T0);
		// Rank 0 has written its file for 300; the finalize step has not rewritten the tracker yet.
		legacyIteration(run, 300, {tp: 2});
		const scan = await scanRunDir(run);
		expect(scan.layouts).toEqual(['megatron']);
		expect(rows(scan)).toEqual([
			['iter_0000100', 100, 'complete', 'unknown', []],
			['iter_0000200', 200, 'complete', 'unknown', []],
			['iter_0000300', 300, 'partial', 'unknown', [`newer than ${TRACKER} (200): still being written or cut off`]],
		]);
		const index = buildIndex(scan, {keep: null, now: T0 + 10 * MIN, disk: null});
		expect(index.retention.toPrune).toEqual([]);
	});

	it('the distributed format with a tracker: complete up to it, no file of theirs read', async () => {
		const run = makeTempDir();
		distIteration(run, 1000);
		writeTracker(run, 1000);
		distIteration(run, 2000, 'shards');
		const scan = await scanRunDir(run);
		expect(scan.layouts).toEqual(['megatron']);
		expect(rows(scan).map(([name, step, status]) => [name, step, status])).toEqual([
			['iter_0001000', 1000, 'complete'],
			['iter_0002000', 2000, 'partial'],
		]);
	});

	it('a release checkpoint named by the tracker is complete, of kind manual (a conversion wrote it)', async () => {
		const run = makeTempDir();
		put(run, `release/${rankDirName(0, null)}/model_optim_rng.pt`, zipArchive(100));
		writeTracker(run, 'release');
		const scan = await scanRunDir(run);
		expect(scan.layouts).toEqual(['megatron']);
		expect(rows(scan)).toEqual([['release', null, 'complete', 'manual', []]]);
	});

	describe('without a tracker, each iteration is judged from its own files', () => {
		const noTracker = `${TRACKER} missing: Megatron would resume from none of these; judged from files`;

		it('whole legacy and dist iterations are complete, with one warning for the directory', async () => {
			const run = makeTempDir();
			legacyIteration(run, 100, {tp: 2});
			distIteration(run, 200);
			const scan = await scanRunDir(run);
			expect(scan.layouts).toEqual(['megatron']);
			expect(scan.warnings).toEqual([noTracker]);
			expect(rows(scan)).toEqual([
				['iter_0000100', 100, 'complete', 'unknown', []],
				['iter_0000200', 200, 'complete', 'unknown', []],
			]);
		});

		it.each([
			[
				'a rank directory without its model file',
				(run: string) => mkdir(run, `${iterName(300)}/${rankDirName(1, null)}`),
				'mp_rank_01/ has no model_optim_rng.pt: that rank did not write it',
			],
			[
				'a model file cut short',
				(run: string) => put(run, `${iterName(300)}/mp_rank_00/model_optim_rng.pt`, zipArchive(500).subarray(0, 400)),
				'mp_rank_00/model_optim_rng.pt: truncated: no zip end record',
			],
			[
				'DCP shards without .metadata',
				(run: string) => distIteration(run, 300, 'shards'),
				'shards without .metadata: the save did not finish',
			],
			[
				'.metadata without metadata.json where the other iterations have one',
				(run: string) => distIteration(run, 300, 'dcp-metadata'),
				'no metadata.json (the other iterations have one): dist_checkpointing did not finalize the save',
			],
			[
				'an empty iteration directory',
				(run: string) => mkdir(run, iterName(300)),
				'empty: the save has not written anything yet',
			],
		])('partial: %s', async (_what, write, why) => {
			const run = makeTempDir();
			legacyIteration(run, 100);
			distIteration(run, 200);
			write(run);
			const scan = await scanRunDir(run);
			expect(scan.layouts).toEqual(['megatron']);
			expect(rows(scan).at(-1)).toEqual(['iter_0000300', 300, 'partial', 'unknown', [why]]);
			expect(
				rows(scan)
					.slice(0, 2)
					.map(row => row[2]),
			).toEqual(['complete', 'complete']);
		});

		it("iter_<N> directories without any of Megatron's files are left to other layouts", async () => {
			const run = makeTempDir();
			put(run, `${iterName(500)}/model.bin`, 30);
			const scan = await scanRunDir(run);
			expect(scan.layouts).toEqual(['generic']);
		});
	});

	it('the tracker file itself is not a checkpoint, and a garbled tracker is a warning', async () => {
		const run = makeTempDir();
		legacyIteration(run, 100);
		put(run, TRACKER, 'latest\n');
		const scan = await scanRunDir(run);
		expect(scan.layouts).toEqual(['megatron']);
		expect(scan.checkpoints.map(c => c.name)).toEqual(['iter_0000100']);
		expect(scan.warnings).toEqual([
			`${TRACKER}: holds neither an iteration number nor release: each iteration is judged from its files`,
		]);
		expect(scan.checkpoints[0]?.status).toBe('complete');
	});
});

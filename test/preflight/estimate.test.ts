import {describe, expect, test} from 'vitest';
import {estimateLoader} from '../../src/preflight/estimate.js';
import {resolveInputs, type TrainConfig} from '../../src/preflight/inputs.js';
import {seedConf} from './run-preflight.js';

// The seed's formula (credit/trainers/preflight.py estimate_dataloader_memory_gib) against numbers worked by hand,
// and the seed's own test configs (tests/test_preflight.py) read through the seed layout.

const GIB = 2 ** 30;

function seedEstimate(data: unknown) {
	const config: TrainConfig = {file: 'train.yaml', data, mapping: null};
	const resolved = resolveInputs({}, config);
	if (resolved.status !== 'ready') throw new Error(`skipped: ${resolved.missing.join('; ')}`);
	return estimateLoader(resolved.inputs);
}

function skippedReasons(data: unknown): string[] {
	const resolved = resolveInputs({}, {file: 'train.yaml', data, mapping: null});
	if (resolved.status !== 'skipped') throw new Error('estimated, expected skipped');
	return [...resolved.missing];
}

describe('the formula', () => {
	test('workers × prefetch × batch × elements × dtype bytes × 2, per rank; × ranks per node', () => {
		// 3×224×224 = 150,528 elements × 4 B = 602,112 B a sample; 8 × 2 × 32 × 602,112 × 2 = 616,562,688 B.
		const estimate = estimateLoader({
			workers: 8,
			prefetchFactor: 2,
			batchSize: 32,
			sampleShape: [3, 224, 224],
			dtypeBytes: 4,
			nprocPerNode: 4,
		});
		expect(estimate.sampleBytes).toBe(602_112);
		expect(estimate.perRankBytes).toBe(616_562_688);
		expect(estimate.perNodeBytes).toBe(2_466_250_752);
	});

	test('bfloat16 halves it; workers 0 (loading in the rank) makes it 0', () => {
		const base = {workers: 4, prefetchFactor: 4, batchSize: 1, sampleShape: [40, 721, 1440], nprocPerNode: 1};
		const f32 = estimateLoader({...base, dtypeBytes: 4}).perRankBytes;
		expect(estimateLoader({...base, dtypeBytes: 2}).perRankBytes).toBe(f32 / 2);
		expect(estimateLoader({...base, workers: 0, dtypeBytes: 4}).perRankBytes).toBe(0);
	});
});

describe("the seed's examples", () => {
	test('test_formula_1d_era5: 3 vars_3D × 13 levels + 1 vars_2D = 40 channels at 721×1440, 4 × 4 × 1 → 4.95 GiB', () => {
		// 721 × 1440 × 40 × 4 B = 166,118,400 B a tensor; × 2 (input, target) × 4 workers × 4 prefetch × batch 1.
		const estimate = seedEstimate(seedConf({}));
		expect(estimate.sampleBytes).toBe(166_118_400);
		expect(estimate.perRankBytes).toBe(5_315_788_800);
		expect(estimate.perRankBytes / GIB).toBeCloseTo(4.9507, 4);
	});

	test('test_025deg_era5_is_large: 5 vars_3D × 37 levels + 4 vars_2D = 189 channels → over 10 GiB (23.39 GiB)', () => {
		// 721 × 1440 × 189 × 4 B = 784,909,440 B a tensor; × 2 × 4 × 4 × 1 = 25,117,102,080 B.
		const conf = seedConf({
			vars3d: ['U', 'V', 'T', 'Q', 'Z'],
			vars2d: ['SP', 'VAR_2T', 'VAR_10U', 'VAR_10V'],
			levels: 37,
		});
		const estimate = seedEstimate(conf);
		expect(estimate.sampleBytes).toBe(784_909_440);
		expect(estimate.perRankBytes).toBe(25_117_102_080);
		expect(estimate.perRankBytes / GIB).toBeGreaterThan(10);
		expect(estimate.perRankBytes / GIB).toBeCloseTo(23.392, 3);
	});

	test("the seed's small config: 64×64, levels [500, 850], vars_3D [u, v], vars_2D [SP], diagnostic [precip] → 3 MiB", () => {
		// 2 × 2 + 1 + 1 = 6 channels; 64 × 64 × 6 × 4 B = 98,304 B; × 2 × 4 × 4 × 1 = 3,145,728 B.
		const conf = seedConf({h: 64, w: 64, levels: 2, vars3d: ['u', 'v'], vars2d: ['SP'], diag2d: ['precip']});
		expect(seedEstimate(conf).perRankBytes).toBe(3 * 1024 ** 2);
	});

	test('it scales with workers, prefetch and batch as the seed tests check', () => {
		const at = (o: Parameters<typeof seedConf>[0]) => seedEstimate(seedConf(o)).perRankBytes;
		expect(at({workers: 4}) / at({workers: 1})).toBe(4);
		expect(at({prefetch: 4}) / at({prefetch: 1})).toBe(4);
		expect(at({batch: 8}) / at({batch: 1})).toBe(8);
	});

	test('where the seed returns 0.0, the estimate is skipped with the reason', () => {
		expect(skippedReasons({})).toContain(
			'workers: not in train.yaml (looked for trainer.thread_workers, trainer.num_workers); or give --workers N',
		);
		expect(skippedReasons(seedConf({vars3d: [], vars2d: [], diag2d: []}))).toEqual([
			'sample_shape: channels: data.source.ERA5 lists no variables (0 channels) in train.yaml; or give --sample-shape CxHxW',
		]);
		// test_raises_internally_returns_zero: levels None with vars_3D [T]: the seed's len(None) raises.
		const noLevels = seedConf({vars3d: ['T']}) as {data: {source: {ERA5: {levels: unknown}}}};
		noLevels.data.source.ERA5.levels = null;
		expect(skippedReasons(noLevels)).toEqual([
			'sample_shape: channels: data.source.ERA5 lists 1 vars_3D but no levels: its channels cannot be counted in train.yaml; or give --sample-shape CxHxW',
		]);
	});

	test("the seed's defaults (4 workers, prefetch 4, batch 1, 721×1440) are not assumed: each is named missing", () => {
		const conf = seedConf({}) as Record<string, unknown>;
		delete conf.trainer;
		delete conf.model;
		const reasons = skippedReasons(conf);
		expect(reasons).toEqual([
			'workers: not in train.yaml (looked for trainer.thread_workers, trainer.num_workers); or give --workers N',
			'prefetch_factor: not in train.yaml (looked for trainer.prefetch_factor); or give --prefetch-factor N',
			'batch_size: not in train.yaml (looked for trainer.train_batch_size, trainer.batch_size); or give --batch-size N',
			'sample_shape: height: not in train.yaml (looked for model.image_height); or give --sample-shape CxHxW',
			'sample_shape: width: not in train.yaml (looked for model.image_width); or give --sample-shape CxHxW',
		]);
		// The flags fill what the file lacks, and the channels still come from data.source.
		const filled = resolveInputs(
			{workers: '4', prefetchFactor: '4', batchSize: '1'},
			{file: 'train.yaml', data: {...conf, model: {image_height: 721, image_width: 1440}}, mapping: null},
		);
		expect(filled.status).toBe('ready');
		if (filled.status === 'ready') expect(estimateLoader(filled.inputs).perRankBytes).toBe(5_315_788_800);
	});
});

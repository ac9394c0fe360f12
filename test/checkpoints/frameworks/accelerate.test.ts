import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {makeTempDir, mkdir, put, removeTempDirs} from '../fixtures.js';
import {accelerateRotate, accelerateSave, type AccelerateSave} from './accelerate-fixture.js';

// Accelerate's save_state with automatic checkpoint naming: checkpoint_<N> in <project_dir>/checkpoints, the random
// states (then custom objects) written last, and a rotation that deletes the oldest entries BEFORE it saves.
// total_limit is not on disk: --keep.

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const MIN = 60_000;

async function index(run: string, keep: number | null) {
	const scan = await scanRunDir(run);
	return {scan, index: buildIndex(scan, {keep, now: T0 + 1000 * MIN, disk: null})};
}

function save(iteration: number, fields: Partial<AccelerateSave> = {}): AccelerateSave {
	return {iteration, time: T0 + iteration * MIN, ...fields};
}

const names = (paths: readonly string[]): string[] => paths.map(p => path.basename(p));

describe('Hugging Face Accelerate layout', () => {
	it('total_limit 3 after six saves: checkpoint_3…5 left; the next save deletes checkpoint_3', async () => {
		const run = makeTempDir();
		for (let i = 0; i < 6; i++) accelerateSave(run, save(i, {totalLimit: 3, customObjects: 1}));
		const {scan, index: idx} = await index(run, 3);
		expect(scan.layouts).toEqual(['accelerate']);
		expect(idx.checkpoints.map(c => [c.name, c.step, c.status, c.kind, c.retention, c.warnings])).toEqual([
			['checkpoint_3', 3, 'complete', 'periodic', 'prune-next', []],
			['checkpoint_4', 4, 'complete', 'periodic', 'keep', []],
			['checkpoint_5', 5, 'complete', 'periodic', 'keep', []],
		]);
		expect(idx.retention.groups).toEqual([
			{
				key: 'accelerate:checkpoints',
				layout: 'accelerate',
				framework: 'Hugging Face Accelerate',
				dir: 'checkpoints',
				rule: 'Accelerate total_limit 3',
				keep: 3,
				source: 'flag',
				from: null,
				count: 3,
				toPrune: [path.join(run, 'checkpoints/checkpoint_3')],
			},
		]);
		// What save_state itself deletes before its next save: the same one.
		expect(accelerateRotate(run, 3)).toEqual(['checkpoint_3']);
	});

	it('without --keep nothing is planned (total_limit is not on disk)', async () => {
		const run = makeTempDir();
		for (let i = 0; i < 3; i++) accelerateSave(run, save(i));
		const {index: idx} = await index(run, null);
		expect(idx.retention.groups[0]).toMatchObject({rule: 'Accelerate total_limit unknown: keeps all (--keep N)'});
		expect(idx.retention.toPrune).toEqual([]);
	});

	it('orders by the number in the name, not the time; partial ones count and are deleted too', async () => {
		const run = makeTempDir();
		accelerateSave(run, save(9, {time: T0}));
		accelerateSave(run, save(10, {time: T0 - MIN, stopAfter: 'model'}));
		accelerateSave(run, save(11, {time: T0 + MIN}));
		const {index: idx} = await index(run, 2);
		expect(idx.checkpoints.map(c => [c.name, c.status])).toEqual([
			['checkpoint_9', 'complete'],
			['checkpoint_10', 'partial'],
			['checkpoint_11', 'complete'],
		]);
		expect(names(idx.retention.toPrune)).toEqual(['checkpoint_9', 'checkpoint_10']);
	});

	it('a checkpoint_<N> dir holding none of its files is not claimed (the generic fallback sees it)', async () => {
		const run = makeTempDir();
		accelerateSave(run, save(1));
		put(run, 'checkpoints/checkpoint_2/weights.npz', 100);
		const {scan} = await index(run, null);
		expect(scan.checkpoints.map(c => [c.name, c.layout])).toEqual([
			['checkpoint_1', 'accelerate'],
			['checkpoint_2', 'generic'],
		]);
	});
});

describe('Hugging Face Accelerate partial saves', () => {
	const NO_RNG = 'no random_states_<rank>.pkl (written last by each process): the save did not finish';

	it.each(['mkdir', 'model', 'optimizer'] as const)(
		'stopped after %s: no random_states_<rank>.pkl',
		async stopAfter => {
			const run = makeTempDir();
			accelerateSave(run, save(0));
			accelerateSave(run, save(1, {stopAfter}));
			const {scan, index: idx} = await index(run, null);
			expect(scan.layouts).toEqual(['accelerate']);
			expect(idx.checkpoints.map(c => [c.name, c.status, c.warnings])).toEqual([
				['checkpoint_0', 'complete', []],
				['checkpoint_1', 'partial', [NO_RNG]],
			]);
		},
	);

	it('stopped before the custom objects: a custom_checkpoint_<i>.pkl the previous save has is missing', async () => {
		const run = makeTempDir();
		accelerateSave(run, save(0, {customObjects: 2}));
		accelerateSave(run, save(1, {customObjects: 2, stopAfter: 'rng'}));
		const {index: idx} = await index(run, null);
		expect(idx.checkpoints[1]).toMatchObject({
			name: 'checkpoint_1',
			status: 'partial',
			warnings: [
				'no custom_checkpoint_0.pkl, which checkpoint_0 has (saved last): the save did not finish',
				'no custom_checkpoint_1.pkl, which checkpoint_0 has (saved last): the save did not finish',
			],
		});
	});

	it('random_states_0.pkl cut short inside torch.save', async () => {
		const run = makeTempDir();
		accelerateSave(run, save(0, {ranks: 2, cutRng: true}));
		const {index: idx} = await index(run, null);
		expect(idx.checkpoints[0]).toMatchObject({
			status: 'partial',
			warnings: ['random_states_0.pkl: truncated: no zip end record'],
		});
	});

	it('in the run dir itself (project_dir/checkpoints given as the run dir)', async () => {
		const project = makeTempDir();
		accelerateSave(project, save(0));
		accelerateSave(project, save(1, {stopAfter: 'model'}));
		mkdir(project, 'checkpoints/logs');
		const {scan} = await index(path.join(project, 'checkpoints'), null);
		expect(scan.checkpoints.map(c => [c.name, c.status, c.group])).toEqual([
			['checkpoint_0', 'complete', 'accelerate:'],
			['checkpoint_1', 'partial', 'accelerate:'],
		]);
	});
});

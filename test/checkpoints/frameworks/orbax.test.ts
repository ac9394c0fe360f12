import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import type {ScanResult} from '../../../src/core/types.js';
import {makeTempDir, put, removeTempDirs} from '../fixtures.js';
import {orbaxSave, type OrbaxSave} from './orbax-fixture.js';

// Orbax's CheckpointManager: <step>/ directories finalized by a rename from <step>.orbax-checkpoint-tmp or by
// commit_success.txt; after each save the preservation policy (max_to_keep, keep_period) deletes the rest.

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const MIN = 60_000;

function rows(scan: ScanResult): [string, number | null, string, string, readonly string[]][] {
	return scan.checkpoints.map(c => [c.name, c.step, c.status, c.kind, c.warnings]);
}

/** Finalized saves of `steps` into run/checkpoints, a minute apart, plus `extra` saves after them. */
function run(steps: readonly number[], extra: Omit<OrbaxSave, 'time'>[] = []): {run: string; root: string} {
	const dir = makeTempDir();
	const root = path.join(dir, 'checkpoints');
	for (const [i, step] of steps.entries()) orbaxSave(root, {step, time: T0 + i * MIN});
	for (const [i, save] of extra.entries()) orbaxSave(root, {...save, time: T0 + (steps.length + i) * MIN});
	return {run: dir, root};
}

describe('Orbax layout', () => {
	it('finalized steps are complete, timed by commit_timestamp_nsecs; --keep 3: the next save deletes the oldest', async () => {
		const {run: dir, root} = run([100, 200, 300]);
		const scan = await scanRunDir(dir);
		expect(scan.layouts).toEqual(['orbax']);
		expect(rows(scan)).toEqual([
			['100', 100, 'complete', 'unknown', []],
			['200', 200, 'complete', 'unknown', []],
			['300', 300, 'complete', 'unknown', []],
		]);
		expect(scan.checkpoints.map(c => c.time)).toEqual([T0 + 2000, T0 + MIN + 2000, T0 + 2 * MIN + 2000]);
		const index = buildIndex(scan, {keep: 3, now: T0 + 10 * MIN, disk: null});
		expect(index.retention.toPrune).toEqual([path.join(root, '100')]);
		expect(index.retention.groups).toMatchObject([
			{
				layout: 'orbax',
				framework: 'Orbax',
				dir: 'checkpoints',
				rule: 'Orbax max_to_keep 3',
				keep: 3,
				source: 'flag',
				count: 3,
			},
		]);
	});

	it('without --keep nothing is planned: Orbax writes no option to disk', async () => {
		const {run: dir} = run([100, 200, 300]);
		const index = buildIndex(await scanRunDir(dir), {keep: null, now: T0 + 10 * MIN, disk: null});
		expect(index.retention.groups[0]?.rule).toBe('Orbax max_to_keep unknown: keeps all (--keep N)');
		expect(index.retention.toPrune).toEqual([]);
	});

	it('steps older than the newest max_to_keep survived by keep_period: protected, and so is a step it divides', async () => {
		const offPeriod = run([1000, 2000, 2500, 3000, 3500]);
		const first = buildIndex(await scanRunDir(offPeriod.run), {keep: 3, now: T0 + 10 * MIN, disk: null});
		expect(first.checkpoints.map(c => [c.name, c.retention])).toEqual([
			['1000', 'protected'],
			['2000', 'protected'],
			['2500', 'prune-next'],
			['3000', 'keep'],
			['3500', 'keep'],
		]);
		expect(first.retention.groups[0]?.rule).toBe('Orbax max_to_keep 3, 2 older kept (keep_period or best_fn)');

		const onPeriod = run([1000, 2000, 3000, 3500, 4000]);
		const second = buildIndex(await scanRunDir(onPeriod.run), {keep: 3, now: T0 + 10 * MIN, disk: null});
		expect(second.retention.toPrune).toEqual([]);
		expect(second.checkpoints.map(c => c.retention)).toEqual(['protected', 'protected', 'protected', 'keep', 'keep']);
	});

	it('step_prefix and step_format_fixed_length names', async () => {
		const dir = makeTempDir();
		orbaxSave(dir, {step: 100, time: T0, prefix: 'step', fixedLength: 6});
		orbaxSave(dir, {step: 200, time: T0 + MIN, prefix: 'step', fixedLength: 6, stage: 'items'});
		const scan = await scanRunDir(dir);
		expect(scan.layouts).toEqual(['orbax']);
		expect(scan.checkpoints.map(c => [c.name, c.step, c.status])).toEqual([
			['step_000100', 100, 'complete'],
			['step_000200.orbax-checkpoint-tmp', 200, 'partial'],
		]);
	});

	describe('partial: each way a save can be unfinished', () => {
		const TMP = 'orbax-checkpoint-tmp: never renamed to its final name, so the save did not finish';

		it.each([
			[
				'a temporary directory (atomic rename)',
				{mode: 'atomic-rename', stage: 'items'},
				'400.orbax-checkpoint-tmp',
				TMP,
			],
			[
				'a timestamped temporary directory (older Orbax)',
				{mode: 'legacy-rename', stage: 'created'},
				`400.orbax-checkpoint-tmp-${T0 + 3 * MIN}`,
				TMP,
			],
			[
				'commit-file mode before finalize: no commit timestamp, no commit_success.txt',
				{mode: 'commit-file', stage: 'items'},
				'400',
				'no commit_success.txt and no commit_timestamp_nsecs in _CHECKPOINT_METADATA: the save did not finish',
			],
			[
				'commit-file mode without step metadata (older Orbax): the other steps have commit_success.txt',
				{mode: 'commit-file', stage: 'items', noStepMetadata: true},
				'400',
				'no commit_success.txt, which the other steps have: the save did not finish',
			],
		] as const)('%s', async (_what, save, name, why) => {
			const {run: dir, root} = run([100, 200, 300], [{step: 400, ...save}]);
			const scan = await scanRunDir(dir);
			expect(scan.layouts).toEqual(['orbax']);
			expect(rows(scan).at(-1)).toEqual([name, 400, 'partial', 'unknown', [why]]);
			// Orbax ranks finalized steps only: the unfinished one neither counts nor goes.
			const index = buildIndex(scan, {keep: 3, now: T0 + 10 * MIN, disk: null});
			expect(index.retention.toPrune).toEqual([path.join(root, '100')]);
			expect(index.retention.groups[0]?.count).toBe(3);
		});
	});

	it('older Orbax (rename, no commit_success.txt anywhere): the final name is the commit', async () => {
		const dir = makeTempDir();
		orbaxSave(dir, {step: 10, time: T0, mode: 'legacy-rename'});
		orbaxSave(dir, {step: 20, time: T0 + MIN, mode: 'legacy-rename', noStepMetadata: true});
		expect(rows(await scanRunDir(dir))).toEqual([
			['10', 10, 'complete', 'unknown', []],
			['20', 20, 'complete', 'unknown', []],
		]);
	});

	it('numbered directories without Orbax files are left to other layouts; the root metadata dir is no checkpoint', async () => {
		const dir = makeTempDir();
		put(dir, 'step_60/.metadata', 1);
		put(dir, 'metadata/_ROOT_METADATA', '{"internal_metadata": {}, "custom_metadata": {"run": "a"}}');
		const scan = await scanRunDir(dir);
		expect(scan.layouts).toEqual(['dcp']);
		expect(scan.checkpoints.map(c => c.name)).toEqual(['step_60']);
	});
});

import {afterEach, describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {makeTempDir, put, removeTempDirs, seedCheckpoint, seedMetadata, setMtime, zipArchive} from '../fixtures.js';

// The seed layout's rotation (demo/job/checkpointing.py, like the seed tool it follows) deletes old
// checkpoint_step_* directories beyond max_checkpoints; state.pt and emergency_state.pt are single files overwritten
// in place, so they are outside it.

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const MIN = 60_000;

/** Four step checkpoints, then state.pt and emergency_state.pt written after them, in the checkpoints dir. */
function runWithStateFiles(where: 'checkpoints' | 'run dir'): string {
	const run = makeTempDir();
	for (const [i, step] of [100, 200, 300, 400].entries()) {
		seedCheckpoint(run, {step, epoch: i, kind: 'periodic', time: T0 + i * MIN});
	}
	const prefix = where === 'checkpoints' ? 'checkpoints/' : '';
	setMtime(put(run, `${prefix}state.pt`, zipArchive(300)), T0 + 10 * MIN);
	setMtime(put(run, `${prefix}emergency_state.pt`, zipArchive(300)), T0 + 11 * MIN);
	return run;
}

describe('seed layout retention', () => {
	it.each(['checkpoints', 'run dir'] as const)(
		'state.pt and emergency_state.pt (in the %s) do not count toward keep-N: --keep 3 prunes 2 of 4',
		async where => {
			const run = runWithStateFiles(where);
			const index = buildIndex(await scanRunDir(run), {keep: 3, now: T0 + 20 * MIN, disk: null});
			const pruned = index.retention.toPrune.map(p =>
				p
					.split('/')
					.at(-1)
					?.replace(/_\d{8}_\d{6}$/, ''),
			);
			expect(pruned).toEqual(['checkpoint_step_100', 'checkpoint_step_200']);
			const marks = Object.fromEntries(index.checkpoints.map(c => [c.name.replace(/_\d{8}_\d{6}$/, ''), c.retention]));
			expect(marks).toEqual({
				checkpoint_step_100: 'prune-next',
				checkpoint_step_200: 'prune-next',
				checkpoint_step_300: 'keep',
				checkpoint_step_400: 'keep',
				'state.pt': 'protected',
				'emergency_state.pt': 'protected',
			});
			const group = index.retention.groups.find(g => g.dir === 'checkpoints');
			expect(group).toMatchObject({framework: 'seed checkpointing', rule: 'seed max_checkpoints 3', count: 4});
		},
	);

	it("the job's max_checkpoints wins over --keep, with a warning that says so", async () => {
		const run = makeTempDir();
		const saves = [100, 200, 300].map((step, i) =>
			seedCheckpoint(run, {step, epoch: i, kind: 'periodic', time: T0 + i * MIN}),
		);
		seedMetadata(run, saves, 2);
		const index = buildIndex(await scanRunDir(run), {keep: 5, now: T0 + 20 * MIN, disk: null});
		expect(index.retention).toMatchObject({keep: 2, source: 'metadata', count: 3});
		expect(index.retention.toPrune).toEqual([saves[0]?.dir, saves[1]?.dir]);
		expect(index.warnings).toContain(
			'--keep 5 not used for the seed checkpointing checkpoints in checkpoints: checkpoint_metadata.json max_checkpoints says 2, and the framework rotates by that',
		);
	});
});

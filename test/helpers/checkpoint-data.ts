import type {Checkpoint, CheckpointIndex, RetentionGroup, SaveCadence} from '../../src/core/types.js';

// Crafted checkpoints and an index, for tests of the views that show them (the checkpoints command,
// the TUI's pane): a fixed clock, the seed layout's names.

export const NOW = new Date(2026, 10, 22, 12, 0, 0).getTime();
export const MIB = 1024 ** 2;
export const GIB = 1024 ** 3;

export function checkpoint(step: number, minutesAgo: number, extra: Partial<Checkpoint> = {}): Checkpoint {
	return {
		path: `/runs/exp1/checkpoints/checkpoint_step_${step}`,
		name: `checkpoint_step_${step}`,
		layout: 'seed',
		step,
		epoch: step / 1000,
		time: NOW - minutesAgo * 60_000,
		bytes: 512 * MIB,
		writeS: 40,
		status: 'complete',
		kind: 'periodic',
		loss: null,
		metric: null,
		group: 'seed:checkpoints',
		warnings: [],
		retention: 'keep',
		...extra,
	};
}

/** Oldest first, as the core keeps them: step 500 is next to be pruned, step 1510 is still being written. */
export function checkpointIndex(extra: Partial<CheckpointIndex> = {}): CheckpointIndex {
	return {
		runDir: '/runs/exp1',
		layouts: ['seed'],
		checkpoints: [
			checkpoint(500, 90, {retention: 'prune-next'}),
			checkpoint(1000, 60),
			checkpoint(1200, 45, {kind: 'manual'}),
			checkpoint(1500, 30),
			checkpoint(1510, 1, {status: 'partial', bytes: 100 * MIB}),
		],
		retention: {
			keep: 3,
			source: 'metadata',
			count: 4,
			toPrune: ['/runs/exp1/checkpoints/checkpoint_step_500'],
			groups: [
				{
					key: 'seed:checkpoints',
					layout: 'seed',
					framework: 'seed checkpointing',
					dir: 'checkpoints',
					rule: 'seed max_checkpoints 3',
					keep: 3,
					source: 'metadata',
					from: 'checkpoint_metadata.json max_checkpoints',
					count: 4,
					toPrune: ['/runs/exp1/checkpoints/checkpoint_step_500'],
				},
			],
		},
		disk: {freeBytes: 20 * GIB, totalBytes: 100 * GIB, avgCheckpointBytes: 512 * MIB, savesUntilFull: 40},
		// The newest complete save (step 1500) is a periodic one.
		lastSave: {
			time: NOW - 30 * 60_000,
			ageS: 1800,
			medianIntervalS: 900,
			periodicTime: NOW - 30 * 60_000,
			overdue: false,
		},
		warnings: [],
		scannedAt: NOW,
		...extra,
	};
}

/**
 * The seed fixture's checkpoints plus two HF checkpoint-N dirs in the run dir (the older marked prune-next), in
 * `group`: an index whose pane heads each group.
 */
export function seedPlusHf(group: RetentionGroup, steps: readonly [number, number]): CheckpointIndex {
	const seed = checkpointIndex();
	const hf = steps.map((step, i) =>
		checkpoint(step, i === 0 ? 20 : 0.5, {
			path: `/runs/exp1/checkpoint-${step}`,
			name: `checkpoint-${step}`,
			layout: 'huggingface',
			group: group.key,
			retention: i === 0 ? 'prune-next' : 'keep',
		}),
	);
	return checkpointIndex({
		checkpoints: [...seed.checkpoints, ...hf],
		retention: {...seed.retention, groups: [...seed.retention.groups, group]},
	});
}

/**
 * A learned cadence of every 300 steps at 1/3 step/s (a save every 15 min), its next save (step 1800) due at `nextAt`
 * and OVERDUE from half a cadence after that, as checkpoints/cadence.ts computes one.
 */
export function cadenceEvery300(nextAt: number): SaveCadence {
	return {
		everySteps: 300,
		everySeconds: 900,
		from: 'learned',
		source: '4 periodic saves seen',
		stepsPerSecond: 1 / 3,
		nextStep: 1800,
		nextAt,
		learning: null,
		overdueAt: nextAt + 450_000,
		suspended: null,
	};
}

import {describe, expect, test} from 'vitest';
import {checkpointsJson, formatCheckpoints} from '../../src/commands/checkpoints-format.js';
import type {CheckpointIndex, SaveCadence} from '../../src/core/types.js';
import {localTimeShort} from '../../src/format/time.js';
import {cadenceEvery300, checkpoint, checkpointIndex, MIB, NOW} from '../helpers/checkpoint-data.js';

/** Every 300 steps at 1/3 step/s: the save of step 1800 was due 15 min after step 1500, 30 min ago. */
const cadence: SaveCadence = cadenceEvery300(NOW - 15 * 60_000);

const index: CheckpointIndex = checkpointIndex({
	disk: {freeBytes: 20 * 1024 * MIB, totalBytes: 100 * 1024 * MIB, avgCheckpointBytes: 512 * MIB, savesUntilFull: null},
	lastSave: {time: NOW - 30 * 60_000, ageS: 1800, medianIntervalS: 900, periodicTime: NOW - 30 * 60_000, overdue: true},
	warnings: ['checkpoint_step_1510: no meta.json yet'],
	cadence,
});
const due = `~${localTimeShort(NOW - 15 * 60_000, NOW)}`;

describe('formatCheckpoints', () => {
	test('newest first, with step, size, kind, status and retention marks, then the summary', () => {
		const lines = formatCheckpoints(index, NOW).split('\n');
		expect(lines[0]).toMatch(/^TIME +AGE +STEP +EPOCH +SIZE +KIND +STATUS +RETENTION +NAME$/);
		expect(lines[1]).toMatch(
			/^2026-11-22 11:59:00 +60 s +1510 +1\.51 +100 MiB +periodic +PARTIAL +checkpoint_step_1510$/,
		);
		expect(lines[3]).toMatch(/45 min +1200 +1\.2 +512 MiB +manual +complete +checkpoint_step_1200$/);
		expect(lines[5]).toMatch(/1\.5 h +500 +0\.5 +512 MiB +periodic +complete +PRUNE NEXT +checkpoint_step_500$/);
		const summary = lines.slice(7).join('\n');
		expect(summary).toContain('5 checkpoints in /runs/exp1 (seed checkpointing in checkpoints/)');
		expect(summary).toContain(
			`last save 30 min ago, written in 40 s — OVERDUE: the save due at step 1800 (${due}) has not come; 15 m 00 s late (every 300 steps at 0.33 steps/s)`,
		);
		expect(summary).toContain(
			'retention: seed checkpointing in checkpoints/ · seed max_checkpoints 3 (checkpoint_metadata.json); 4 counted; the next save prunes checkpoint_step_500',
		);
		expect(summary).toContain(
			'disk: 20.0 GiB free of 100 GiB; checkpoints 512 MiB on average; rotation keeps usage flat',
		);
		expect(summary).toContain('warning: checkpoint_step_1510: no meta.json yet');
	});

	test('no keep-N known, a disk that will fill, and an empty run dir', () => {
		const noKeep = formatCheckpoints(
			{
				...index,
				retention: {keep: null, source: 'none', count: 4, toPrune: [], groups: []},
				disk: {...index.disk, savesUntilFull: 40},
			},
			NOW,
		);
		expect(noKeep).toContain('retention: no keep-N known (use --keep N): nothing is planned for deletion');
		expect(noKeep).toContain('about 40 more saves fit');
		expect(formatCheckpoints({...index, checkpoints: [], warnings: [], lastSave: null}, NOW)).toBe(
			'no checkpoints yet in /runs/exp1',
		);
	});

	test('a manual or emergency last save is named; the next save expected, or why not yet', () => {
		const periodicTime = NOW - 30 * 60_000;
		const afterManual: CheckpointIndex = {
			...index,
			checkpoints: [...index.checkpoints.slice(0, 4), checkpoint(1505, 5, {kind: 'manual'})],
			lastSave: {time: NOW - 5 * 60_000, ageS: 300, medianIntervalS: 900, periodicTime, overdue: true},
		};
		expect(formatCheckpoints(afterManual, NOW).split('\n')).toContain(
			`last save 5 min ago (manual), written in 40 s — OVERDUE: the save due at step 1800 (${due}) has not come; 15 m 00 s late (every 300 steps at 0.33 steps/s)`,
		);
		const onTime: CheckpointIndex = {
			...afterManual,
			lastSave: {...afterManual.lastSave!, overdue: false},
			cadence: {...cadence, nextAt: NOW + 60_000},
		};
		expect(formatCheckpoints(onTime, NOW).split('\n')).toContain(
			'last save 5 min ago (manual), written in 40 s; next save ~step 1800 in 60 s (every 300 steps at 0.33 steps/s)',
		);
		const emergencyOnly: CheckpointIndex = {
			...index,
			checkpoints: [checkpoint(1505, 5, {kind: 'emergency'})],
			lastSave: {time: NOW - 5 * 60_000, ageS: 300, medianIntervalS: null, periodicTime: null, overdue: false},
			cadence: {...cadence, learning: 'learning: no periodic save seen yet, 3 needed', overdueAt: null},
		};
		expect(formatCheckpoints(emergencyOnly, NOW).split('\n')).toContain(
			'last save 5 min ago (emergency), written in 40 s; cadence: learning (no periodic save seen yet, 3 needed)',
		);
		expect(checkpointsJson(afterManual).last_save?.last_periodic_time).toBe(new Date(periodicTime).toISOString());
		expect(checkpointsJson(emergencyOnly).last_save?.last_periodic_time).toBeNull();
	});
});

test('checkpointsJson has the contract fields with ISO times', () => {
	const json = checkpointsJson(index);
	expect(Object.keys(json)).toEqual([
		'run_dir',
		'layouts',
		'checkpoints',
		'retention',
		'disk',
		'last_save',
		'cadence',
		'warnings',
	]);
	expect(json.checkpoints[0]).toMatchObject({
		step: 500,
		status: 'complete',
		kind: 'periodic',
		retention: 'prune-next',
		bytes: 512 * MIB,
	});
	expect(json.checkpoints[0]?.time).toBe(new Date(NOW - 90 * 60_000).toISOString());
	expect(json.retention).toEqual({
		keep: 3,
		source: 'metadata',
		count: 4,
		to_prune: ['/runs/exp1/checkpoints/checkpoint_step_500'],
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
				to_prune: ['/runs/exp1/checkpoints/checkpoint_step_500'],
				keep_inferred: false,
				facts: [],
				cadence: null,
			},
		],
	});
	expect(json.checkpoints[0]).toMatchObject({framework: 'seed checkpointing', group: 'seed:checkpoints', metric: null});
	expect(json.disk).toEqual({
		free_bytes: 20 * 1024 * MIB,
		total_bytes: 100 * 1024 * MIB,
		avg_checkpoint_bytes: 512 * MIB,
		saves_until_full: null,
	});
	expect(json.last_save).toEqual({
		time: new Date(NOW - 1_800_000).toISOString(),
		age_s: 1800,
		median_interval_s: 900,
		last_periodic_time: new Date(NOW - 1_800_000).toISOString(),
		overdue: true,
	});
	expect(json.cadence).toEqual({
		every_steps: 300,
		every_s: 900,
		from: 'learned',
		source: '4 periodic saves seen',
		steps_per_s: 1 / 3,
		next_step: 1800,
		next_time: new Date(NOW - 900_000).toISOString(),
		overdue_time: new Date(NOW - 450_000).toISOString(),
		learning: null,
		suspended: null,
	});
});

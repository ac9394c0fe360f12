// Retention plan, disk projection and save cadence (src/checkpoints/retention.ts): pure, on hand-made scans.

import {describe, expect, it} from 'vitest';
import {
	buildIndex,
	lastSaveAt,
	rotationKeepsUsageFlat,
	savesUntilFull,
	type BuildIndexOptions,
} from '../../src/checkpoints/retention.js';
import type {CheckpointKind, CheckpointStatus, ScannedCheckpoint, ScanResult} from '../../src/core/types.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MB = 1024 * 1024;

function ckpt(
	step: number | null,
	fields: Partial<ScannedCheckpoint> & {kind?: CheckpointKind; status?: CheckpointStatus} = {},
): ScannedCheckpoint {
	const name = fields.name ?? (step === null ? `ckpt_${fields.kind ?? 'x'}` : `checkpoint_step_${step}`);
	return {
		path: `/run/checkpoints/${name}`,
		name,
		layout: 'seed',
		step,
		epoch: null,
		time: T0 + (step ?? 0) * 1000,
		bytes: 10 * MB,
		writeS: null,
		status: 'complete',
		kind: 'periodic',
		loss: null,
		metric: null,
		group: 'seed:checkpoints',
		warnings: [],
		...fields,
	};
}

function scan(checkpoints: ScannedCheckpoint[], extra: Partial<ScanResult> = {}): ScanResult {
	return {runDir: '/run', layouts: ['seed'], checkpoints, groups: [], warnings: [], ...extra};
}

/** The seed group with the keep-N its metadata declares. */
function declaring(keep: number | null): Partial<ScanResult> {
	const declared = keep === null ? null : {keep, from: 'checkpoint_metadata.json max_checkpoints', monitor: null};
	return {groups: [{key: 'seed:checkpoints', layout: 'seed', dir: 'checkpoints', declared}]};
}

function build(s: ScanResult, options: Partial<BuildIndexOptions> = {}) {
	return buildIndex(s, {keep: null, now: T0 + 1_000_000, disk: null, ...options});
}

/** Steps 100, 200, … (n of them). */
function periodic(n: number): ScannedCheckpoint[] {
	return Array.from({length: n}, (_, i) => ckpt((i + 1) * 100));
}

describe('keep-N source', () => {
	it.each([
		// The job rotates by its own max_checkpoints whatever --keep says: the flag only fills in what it leaves unsaid.
		{name: 'metadata wins over a flag', flag: 2, declared: 5, keep: 5, source: 'metadata'},
		{name: 'metadata without a flag', flag: null, declared: 5, keep: 5, source: 'metadata'},
		{name: 'neither', flag: null, declared: null, keep: null, source: 'none'},
		{name: 'flag without metadata', flag: 3, declared: null, keep: 3, source: 'flag'},
		{name: 'flag 0 means keep all', flag: 0, declared: null, keep: null, source: 'none'},
	] as const)('$name', ({flag, declared, keep, source}) => {
		const index = build(scan(periodic(6), declaring(declared)), {keep: flag});
		expect(index.retention.keep).toBe(keep);
		expect(index.retention.source).toBe(source);
		if (keep === null) {
			expect(index.retention.toPrune).toEqual([]);
			expect(index.checkpoints.every(c => c.retention === 'keep')).toBe(true);
		}
	});
});

describe('prune-next', () => {
	it.each([
		{count: 2, keep: 3, pruned: 0}, // N − 1: the next save reaches N, nothing goes
		{count: 3, keep: 3, pruned: 1}, // N: the oldest goes
		{count: 5, keep: 3, pruned: 3}, // N + 2: the three oldest go
		{count: 1, keep: 1, pruned: 1},
		{count: 0, keep: 3, pruned: 0},
	])('$count counted, keep $keep → $pruned pruned', ({count, keep, pruned}) => {
		const index = build(scan(periodic(count)), {keep});
		expect(index.retention.count).toBe(count);
		const expected = periodic(count)
			.slice(0, pruned)
			.map(c => c.path);
		expect(index.retention.toPrune).toEqual(expected);
		expect(index.checkpoints.filter(c => c.retention === 'prune-next').map(c => c.path)).toEqual(expected);
	});

	it('orders by step where both have one, else by time, whatever the scan order', () => {
		const a = ckpt(300, {time: T0 + 1}); // highest step, oldest time: still the newest
		const b = ckpt(100, {time: T0 + 50});
		const c = ckpt(null, {name: 'manual_x', time: T0 + 10}); // no step: by time, older than b
		const index = build(scan([a, b, c]), {keep: 2});
		expect(index.retention.toPrune).toEqual([c.path, b.path]);
		expect(index.checkpoints.map(x => x.name)).toEqual([a.name, b.name, c.name]); // scan order kept
	});

	it('last and best are protected: not counted, never pruned', () => {
		const last = ckpt(null, {kind: 'last', name: 'last.ckpt', time: T0});
		const best = ckpt(100, {kind: 'best', name: 'checkpoint-100'});
		const index = build(scan([best, ...periodic(3).slice(1), last]), {keep: 1});
		expect(index.retention.count).toBe(2);
		expect(index.checkpoints.find(c => c.name === 'last.ckpt')?.retention).toBe('protected');
		expect(index.checkpoints.find(c => c.name === 'checkpoint-100')?.retention).toBe('protected');
		expect(index.retention.toPrune).toEqual([ckpt(200).path, ckpt(300).path]);
	});

	it('partial checkpoints are neither counted nor pruned', () => {
		const partial = ckpt(50, {status: 'partial', name: 'checkpoint_step_50.tmp'});
		const index = build(scan([partial, ...periodic(2)]), {keep: 2});
		expect(index.retention.count).toBe(2);
		expect(index.checkpoints[0]?.retention).toBe('keep');
		expect(index.retention.toPrune).toEqual([ckpt(100).path]);
	});
});

describe('disk projection', () => {
	it.each([
		// without rotation: floor(free / avg)
		{name: 'no keep', keep: null, count: 3, free: 55, want: 5},
		{name: 'no keep, no room', keep: null, count: 3, free: 9, want: 0},
		// rotation at N already: one checkpoint of headroom keeps usage flat
		{name: 'keep 3, 3 counted, room for one', keep: 3, count: 3, free: 10, want: null},
		{name: 'keep 3, 5 counted', keep: 3, count: 5, free: 25, want: null},
		{name: 'keep 3, 3 counted, less than one', keep: 3, count: 3, free: 9, want: 0},
		// below N: the next N − count saves only add
		{name: 'keep 5, 2 counted, runs out while growing', keep: 5, count: 2, free: 30, want: 3},
		{name: 'keep 5, 2 counted, room to reach N and rotate', keep: 5, count: 2, free: 40, want: null},
	])('$name → $want', ({keep, count, free, want}) => {
		const index = build(scan(periodic(count)), {keep, disk: {freeBytes: free * MB, totalBytes: 1000 * MB}});
		expect(index.disk).toEqual({
			freeBytes: free * MB,
			totalBytes: 1000 * MB,
			avgCheckpointBytes: 10 * MB,
			savesUntilFull: want,
		});
		expect(rotationKeepsUsageFlat(index)).toBe(want === null);
	});

	it('averages complete checkpoints only, protected ones included', () => {
		const s = scan([
			ckpt(100, {bytes: 10}),
			ckpt(200, {bytes: 30}),
			ckpt(null, {kind: 'last', bytes: 20}),
			ckpt(300, {status: 'partial', bytes: 1}),
		]);
		expect(build(s).disk.avgCheckpointBytes).toBe(20);
	});

	it('unknown free space or no complete checkpoint: null, and not "flat"', () => {
		const noDisk = build(scan(periodic(3)), {keep: 3});
		expect(noDisk.disk).toEqual({freeBytes: null, totalBytes: null, avgCheckpointBytes: 10 * MB, savesUntilFull: null});
		expect(rotationKeepsUsageFlat(noDisk)).toBe(false);
		const empty = build(scan([ckpt(1, {status: 'partial'})]), {keep: 3, disk: {freeBytes: 100, totalBytes: 200}});
		expect(empty.disk.avgCheckpointBytes).toBeNull();
		expect(empty.disk.savesUntilFull).toBeNull();
		expect(rotationKeepsUsageFlat(empty)).toBe(false);
		expect(savesUntilFull(100, 0, null, 0)).toBeNull();
	});
});

describe('last save', () => {
	const at = (s: number, fields: Partial<ScannedCheckpoint> = {}) => ckpt(s, {time: T0 + s * 1000, ...fields});
	// An index built from one look at the disk (no history: `traintop checkpoints`) saw no save being written, so it
	// judges no cadence and is never OVERDUE (cadence.test.ts judges the watcher's). The median gap stays, as figures.
	const judged = {overdue: false, overdueAt: null};

	it.each([
		{name: 'no complete checkpoint', times: [], now: 10, want: null},
		{
			name: 'one save: no median',
			times: [0],
			now: 1000,
			want: {time: T0, ageS: 1000, medianIntervalS: null, periodicTime: T0, ...judged},
		},
		{
			name: 'two saves 60 s apart, 91 s old: not OVERDUE from one look (the old rule said so at 1.5 × 60 s)',
			times: [0, 60],
			now: 151,
			want: {time: T0 + 60_000, ageS: 91, medianIntervalS: 60, periodicTime: T0 + 60_000, ...judged},
		},
		{
			name: 'median of an even count of gaps',
			times: [0, 10, 40, 100],
			now: 100,
			want: {time: T0 + 100_000, ageS: 0, medianIntervalS: 30, periodicTime: T0 + 100_000, ...judged},
		},
		{
			name: 'median resists one long gap',
			times: [0, 10, 20, 30, 1000],
			now: 1014,
			want: {time: T0 + 1_000_000, ageS: 14, medianIntervalS: 10, periodicTime: T0 + 1_000_000, ...judged},
		},
	])('$name', ({times, now, want}) => {
		const index = build(scan(times.map(s => at(s))), {now: T0 + now * 1000});
		expect(index.lastSave).toEqual(want);
	});

	it('ignores partials, leaves `last` out of the intervals, and clamps a future time to age 0', () => {
		const s = scan([at(0), at(30), at(30, {kind: 'last', name: 'last.ckpt'}), at(500, {status: 'partial'})]);
		expect(build(s, {now: T0 + 40_000}).lastSave).toEqual({
			time: T0 + 30_000,
			ageS: 10,
			medianIntervalS: 30,
			periodicTime: T0 + 30_000,
			...judged,
		});
		expect(build(s, {now: T0}).lastSave?.ageS).toBe(0);
	});

	it('one look says why it judges no cadence', () => {
		expect(build(scan([at(0), at(20), at(40)])).cadence).toMatchObject({
			learning:
				'learning: one look at the disk shows no save being written; the monitor learns the cadence as it watches',
			overdueAt: null,
		});
	});
});

describe('median interval: periodic saves only', () => {
	const at = (s: number, kind: CheckpointKind = 'periodic') =>
		ckpt(s, {time: T0 + s * 1000, kind, name: `${kind}_${s}`});

	it('a manual save between two periodic ones adds no gap: the median stays 20 s', () => {
		const withManual = scan([at(0), at(20), at(40), at(45, 'manual'), at(60)]);
		expect(build(withManual, {now: T0 + 75_000}).lastSave).toMatchObject({
			time: T0 + 60_000,
			medianIntervalS: 20,
			periodicTime: T0 + 60_000,
		});
	});

	it.each(['manual', 'emergency'] as const)(
		'a newer %s save is the last save; periodicTime is the periodic one',
		kind => {
			const s = scan([at(0), at(20), at(40), at(60), at(85, kind)]);
			expect(build(s, {now: T0 + 91_000}).lastSave).toMatchObject({
				time: T0 + 85_000,
				ageS: 6,
				medianIntervalS: 20,
				periodicTime: T0 + 60_000,
			});
		},
	);

	it('a burst of manual saves gives no median and no periodic save', () => {
		const s = scan([at(0, 'manual'), at(30, 'manual'), at(60, 'manual'), at(65, 'emergency')]);
		expect(build(s, {now: T0 + 10_000_000}).lastSave).toMatchObject({medianIntervalS: null, periodicTime: null});
	});

	it('unknown-kind saves (a layout that records none) make the median; best and last do not', () => {
		const s = scan([at(0, 'unknown'), at(50, 'unknown'), at(55, 'best'), at(100, 'unknown'), at(101, 'last')]);
		expect(build(s, {now: T0 + 160_000}).lastSave).toMatchObject({
			time: T0 + 101_000,
			medianIntervalS: 50,
			periodicTime: T0 + 100_000,
		});
	});
});

describe('lastSaveAt', () => {
	const last = {time: T0 + 100_000, medianIntervalS: 20, periodicTime: T0 + 100_000};

	it('is overdue once overdueAt has passed, never while it is null', () => {
		expect(lastSaveAt({...last, overdueAt: T0 + 130_000}, T0 + 130_000).overdue).toBe(false);
		expect(lastSaveAt({...last, overdueAt: T0 + 130_000}, T0 + 130_001)).toEqual({
			...last,
			ageS: 30.001,
			overdue: true,
			overdueAt: T0 + 130_000,
		});
		expect(lastSaveAt({...last, overdueAt: null}, T0 + 10_000_000).overdue).toBe(false);
	});

	it('a lastSave without overdueAt (built by hand) keeps its overdue', () => {
		expect(lastSaveAt({...last, overdue: true}, T0 + 110_000)).toEqual({...last, ageS: 10, overdue: true});
		expect(lastSaveAt({time: T0, medianIntervalS: null}, T0 + 5000)).toEqual({
			time: T0,
			ageS: 5,
			medianIntervalS: null,
			periodicTime: T0,
			overdue: false,
		});
	});
});

describe('the rest of the index', () => {
	it('copies run dir and layouts, stamps scannedAt, gathers warnings with checkpoint names', () => {
		const s = scan([ckpt(100, {warnings: ['trainer_state.json: malformed']}), ckpt(200)], {
			layouts: ['seed', 'huggingface'],
			warnings: ['checkpoint_metadata.json: malformed'],
		});
		const index = build(s, {now: 42});
		expect(index.runDir).toBe('/run');
		expect(index.layouts).toEqual(['seed', 'huggingface']);
		expect(index.scannedAt).toBe(42);
		expect(index.warnings).toEqual([
			'checkpoint_metadata.json: malformed',
			'checkpoint_step_100: trainer_state.json: malformed',
		]);
		expect(index.checkpoints[0]).toEqual({...s.checkpoints[0], retention: 'keep'});
	});
});

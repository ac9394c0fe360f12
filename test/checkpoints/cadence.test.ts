// The save cadence and OVERDUE (src/checkpoints/cadence.ts through buildIndex): judged from the saves a watcher saw
// being written, scan after scan, as CheckpointWatcher records them into its SaveHistory. Each case that was a false
// OVERDUE on a real job says what the old rule (1.5 × the median gap of the periodic saves on disk) made of it.

import {describe, expect, it} from 'vitest';
import {MARGIN_FLOOR_S, overdueMarginS, stepCadence} from '../../src/checkpoints/cadence.js';
import {buildIndex, lastSaveAt} from '../../src/checkpoints/retention.js';
import {SaveHistory} from '../../src/checkpoints/save-history.js';
import type {
	CheckpointIndex,
	CheckpointKind,
	DeclaredCadence,
	ScannedCheckpoint,
	ScanResult,
	SentSignal,
} from '../../src/core/types.js';
import {overdueText} from '../../src/format/checkpoints.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

interface Save {
	readonly step: number | null;
	/** Seconds since T0 it was written. */
	readonly t: number;
	readonly kind?: CheckpointKind;
	readonly name?: string;
}

function ckpt(save: Save): ScannedCheckpoint {
	const name = save.name ?? `step_${save.step ?? save.t}_${save.kind ?? 'periodic'}`;
	return {
		path: `/run/ckpt/${name}`,
		name,
		layout: 'generic',
		step: save.step,
		epoch: null,
		time: T0 + save.t * 1000,
		bytes: 1000,
		writeS: null,
		status: 'complete',
		kind: save.kind ?? 'periodic',
		loss: null,
		metric: null,
		group: 'generic:ckpt',
		warnings: [],
	};
}

function scanOf(saves: readonly Save[], cadence: DeclaredCadence | null = null): ScanResult {
	const declared = cadence === null ? null : {keep: null, from: 'config', monitor: null, cadence};
	return {
		runDir: '/run',
		layouts: ['generic'],
		checkpoints: saves.map(ckpt),
		groups: [{key: 'generic:ckpt', layout: 'generic', dir: 'ckpt', declared}],
		warnings: [],
	};
}

interface Watch {
	/** The index as a watcher would hold it after seeing `saves` written one by one (a rescan after each). */
	readonly index: CheckpointIndex;
	/** The same index judged at `t` seconds (getIndex's renewal on the clock). */
	at(t: number): CheckpointIndex;
}

/** A watcher's view: a first scan finds `onDisk` (seeded, not seen written), then a rescan follows each of `saves`. */
function watch(
	onDisk: readonly Save[],
	saves: readonly Save[],
	options: {cadence?: DeclaredCadence; signals?: SentSignal[]} = {},
): Watch {
	const history = new SaveHistory();
	const first = onDisk.at(-1)?.t ?? 0;
	const build = (present: readonly Save[], now: number) =>
		buildIndex(scanOf(present, options.cadence ?? null), {
			keep: null,
			now: T0 + now * 1000,
			disk: null,
			history,
			signals: options.signals ?? [],
		});
	let all = [...onDisk];
	let index = build(all, first);
	for (const save of saves) {
		all = [...all, save];
		index = build(all, save.t);
	}
	const last = index;
	return {
		index: last,
		// As CheckpointWatcher.getIndex renews it: lastSaveAt on the clock.
		at: t => (last.lastSave ? {...last, lastSave: lastSaveAt(last.lastSave, T0 + t * 1000)} : last),
	};
}

/** Periodic saves every `every` steps at `pace` steps/s, from step `every` (n of them). */
function periodic(n: number, every: number, pace: number, from = 1): Save[] {
	return Array.from({length: n}, (_, i) => ({step: (from + i) * every, t: ((from + i) * every) / pace}));
}

describe('stepCadence: the cadence in steps from the steps of the periodic saves', () => {
	it.each([
		{name: 'a steady cadence', steps: [300, 600, 900, 1200], every: 300},
		{name: 'one save missing (a gap of 2 × 300)', steps: [300, 600, 1200, 1500], every: 300},
		{name: 'an extra save at step 714', steps: [300, 600, 714, 900, 1200], every: 300},
		{
			name: 'an extra save on a round step (700), not a 100-step cadence',
			steps: [300, 600, 700, 900, 1200],
			every: 300,
		},
		{name: 'saves one step after the multiple (step counted from 1)', steps: [301, 601, 901], every: 300},
		{name: 'three saves: not the 600 of two of them', steps: [300, 600, 900], every: 300},
	])('$name → every $every', ({steps, every}) => {
		expect(stepCadence(steps)?.every).toBe(every);
	});

	it('one save gives none', () => {
		expect(stepCadence([300])).toBeNull();
	});
});

describe('OVERDUE from the expected next save, not from 1.5 × the median gap', () => {
	it('a DDP job saving every 300 steps with a save at step 714 in between: not overdue until step 1200 is late', () => {
		// 30 steps/s: periodic saves at t = 10, 20, 30; an unknown-kind save at step 714 (t = 23.8) written by the job's
		// own handler. The old rule took its gaps (10, 3.8, 6.2: a median of 6.2 s) and called the job OVERDUE at t = 40,
		// "last periodic save 10 s ago, over 1.5 × the usual 6.2 s", while step 1200 was not due before t = 40.
		const job = watch([], [...periodic(2, 300, 30), {step: 714, t: 23.8, kind: 'unknown'}, {step: 900, t: 30}]);
		expect(job.index.cadence).toMatchObject({everySteps: 300, from: 'learned', nextStep: 1200, learning: null});
		expect(job.index.cadence?.stepsPerSecond).toBeCloseTo(30, 6);
		expect(job.index.cadence?.nextAt).toBe(T0 + 40_000);
		// The margin: half the 10 s cadence is under the floor, so 10 s.
		expect(job.index.cadence?.overdueAt).toBe(T0 + 50_000);
		expect(job.at(45).lastSave?.overdue).toBe(false);
		expect(job.at(50.5).lastSave?.overdue).toBe(true);
		expect(overdueText(job.at(60), T0 + 60_000)).toMatch(
			/^the save due at step 1200 \(~\d\d:\d\d:\d\d\) has not come; 20 s late \(every 300 steps at 30 steps\/s\)$/,
		);
	});

	it('a manual save does not move the cadence: the save due stays the periodic one', () => {
		const job = watch([], [...periodic(3, 300, 30), {step: 1000, t: 33.3, kind: 'manual'}]);
		expect(job.index.cadence).toMatchObject({everySteps: 300, nextStep: 1200});
		expect(job.at(49).lastSave?.overdue).toBe(false);
	});

	it('a save past the one due (step 1250 after 900, none at 1200): the next due is 1500, not the skipped 1200', () => {
		const job = watch([], [...periodic(3, 300, 30), {step: 1250, t: 1250 / 30, kind: 'manual'}]);
		expect(job.index.cadence).toMatchObject({everySteps: 300, nextStep: 1500, nextAt: T0 + 50_000});
	});

	it('the pace is the median between saves: a stop, then a burst of saves after it, do not move it', () => {
		// 30 steps/s; stopped 60 s after step 900, then steps 1200 and 1500 written 1 s apart (a job catching up).
		const saves = [...periodic(3, 300, 30), {step: 1200, t: 90}, {step: 1500, t: 91}, {step: 1800, t: 101}];
		const job = watch([], saves);
		expect(job.index.cadence?.stepsPerSecond).toBeCloseTo(30, 6);
	});

	it('one save missing (the job skipped step 900): the cadence stays 300, the next due at 1800', () => {
		const saves = [...periodic(2, 300, 30), ...periodic(2, 300, 30, 4), {step: 1500, t: 50}];
		const job = watch([], saves);
		expect(job.index.cadence).toMatchObject({everySteps: 300, nextStep: 1800, learning: null});
	});

	it('a cadence of a second: not OVERDUE two seconds after the last save (the floor of the margin)', () => {
		// The old rule: "OVERDUE … 2 s ago, over 1.5 × the usual 1 s".
		const job = watch([], periodic(4, 10, 10));
		expect(job.index.cadence?.everySeconds).toBeCloseTo(1, 6);
		expect(job.at(6).lastSave?.overdue).toBe(false);
		expect(job.at(5 + MARGIN_FLOOR_S + 0.5).lastSave?.overdue).toBe(true);
	});

	it('the margin is half a cadence above the floor', () => {
		expect(overdueMarginS(600)).toBe(300);
		expect(overdueMarginS(4)).toBe(MARGIN_FLOOR_S);
	});
});

describe('learning: no OVERDUE until enough saves were seen being written', () => {
	it('top-k survivors on disk at the first scan are no time series: learning, never OVERDUE', () => {
		// Lightning top-2 by loss: the survivors are steps 20 and 70, written 50 s apart, and last.ckpt just now. The old
		// rule: the survivors' one gap (50 s) made the job OVERDUE 75 s after step 70, whatever it was doing since.
		const onDisk = [
			{step: 20, t: 20, name: 'epoch=0-step=20.ckpt'},
			{step: 70, t: 70, name: 'epoch=0-step=70.ckpt'},
			{step: 150, t: 150, kind: 'last' as const, name: 'last.ckpt'},
		];
		const job = watch(onDisk, []);
		expect(job.index.cadence?.learning).toBe('learning: no periodic save seen yet, 3 needed');
		expect(job.at(150).lastSave?.overdue).toBe(false);
		expect(job.at(100_000).lastSave?.overdue).toBe(false);
	});

	it('says how many saves it has seen, and judges from the third', () => {
		expect(watch(periodic(5, 300, 30), periodic(1, 300, 30, 6)).index.cadence?.learning).toBe(
			'learning: 1 periodic save seen, 3 needed',
		);
		expect(watch([], periodic(2, 300, 30)).index.cadence?.learning).toBe(
			'learning: 2 periodic saves seen on a 300-step cadence, 3 needed',
		);
		expect(watch([], periodic(3, 300, 30)).index.cadence?.learning).toBeNull();
	});

	it('a declared cadence needs only the pace: two saves seen', () => {
		const declared = {everySteps: 300, everyEpochs: null, everySeconds: null, from: 'training_args.bin save_steps'};
		const one = watch([], periodic(1, 300, 30), {cadence: declared});
		expect(one.index.cadence).toMatchObject({from: 'declared', everySteps: 300, nextStep: 600, overdueAt: null});
		expect(one.index.cadence?.learning).toBe('learning the pace: 1 save with a step seen, 2 needed');
		const two = watch([], periodic(2, 300, 30), {cadence: declared});
		expect(two.index.cadence).toMatchObject({from: 'declared', source: 'training_args.bin save_steps', nextStep: 900});
		expect(two.index.cadence?.overdueAt).toBe(T0 + 40_000);
	});

	it('a time-based cadence (train_time_interval) goes by the time of the last periodic save seen', () => {
		const declared = {everySteps: null, everyEpochs: null, everySeconds: 60, from: 'ckpt train_time_interval'};
		const job = watch(
			[],
			[
				{step: 13, t: 60},
				{step: 32, t: 120},
			],
			{cadence: declared},
		);
		expect(job.index.cadence).toMatchObject({everySeconds: 60, nextStep: null, nextAt: T0 + 180_000});
		expect(job.index.cadence?.overdueAt).toBe(T0 + 210_000);
	});
});

describe('copies and marks count as the save they copy', () => {
	it("Lightning's last.ckpt, rewritten at every save without a step of its own, does not turn the cadence to time", () => {
		const saves = periodic(3, 300, 30).flatMap(save => [
			save,
			{step: null, t: save.t + 0.2, kind: 'last' as const, name: 'last.ckpt'},
		]);
		const job = watch([], saves);
		expect(job.index.cadence).toMatchObject({everySteps: 300, nextStep: 1200, learning: null});
	});

	it('saves without steps go by the gaps seen', () => {
		const job = watch(
			[],
			[
				{step: null, t: 60},
				{step: null, t: 120},
				{step: null, t: 180},
			],
		);
		expect(job.index.cadence).toMatchObject({everySteps: null, everySeconds: 60, nextAt: T0 + 240_000, learning: null});
	});
});

describe('a job traintop is stopping is never OVERDUE', () => {
	it('after the emergency signal, however long the job takes to stop', () => {
		const signal: SentSignal = {signal: 'SIGTERM', expect: 'emergency', at: T0 + 31_000, job: '42'};
		const job = watch([], periodic(3, 300, 30), {signals: [signal]});
		expect(job.index.cadence?.suspended).toBe(
			'traintop sent SIGTERM (emergency) to stop the job: not late while it stops',
		);
		expect(job.at(1000).lastSave?.overdue).toBe(false);
	});

	it('a periodic save the job was writing as the signal came does not lift it; one a cadence later does', () => {
		const signal: SentSignal = {signal: 'SIGTERM', expect: 'emergency', at: T0 + 29_500, job: '42'};
		expect(watch([], periodic(3, 300, 30), {signals: [signal]}).index.cadence?.suspended).not.toBeNull();
		const went = watch([], periodic(5, 300, 30), {signals: [signal]});
		expect(went.index.cadence).toMatchObject({suspended: null, nextStep: 1800});
		expect(went.at(1000).lastSave?.overdue).toBe(true);
	});

	it('a manual save signal does not suspend it', () => {
		const signal: SentSignal = {signal: 'SIGUSR1', expect: 'manual', at: T0 + 31_000, job: '42'};
		expect(watch([], periodic(3, 300, 30), {signals: [signal]}).at(1000).lastSave?.overdue).toBe(true);
	});
});

// The kinds of the saves traintop's own signals asked for (src/checkpoints/signal-saves.ts), pure, on hand-made
// checkpoints and cadences; and buildIndex applying them first (src/checkpoints/retention.ts).

import {describe, expect, it} from 'vitest';
import {buildIndex} from '../../src/checkpoints/retention.js';
import {SIGNAL_SAVE_WINDOW_MS, signalSaves, withAnswers} from '../../src/checkpoints/signal-saves.js';
import type {SaveCadence, ScannedCheckpoint, SentSignal} from '../../src/core/types.js';
import {localTime} from '../../src/format/time.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const SENT_AT = T0 + 100_000;
const CLOCK = localTime(SENT_AT).slice(11);

function ckpt(step: number, fields: Partial<ScannedCheckpoint> = {}): ScannedCheckpoint {
	const name = fields.name ?? `ckpt_step${step}.pt`;
	return {
		path: `/run/${name}`,
		name,
		layout: 'generic',
		step,
		epoch: null,
		time: T0 + step * 100,
		bytes: 1000,
		writeS: null,
		status: 'complete',
		kind: 'unknown',
		loss: null,
		metric: null,
		group: 'generic:',
		warnings: [],
		...fields,
	};
}

const usr1: SentSignal = {signal: 'SIGUSR1', expect: 'manual', at: SENT_AT, job: 'job', before: []};
const term: SentSignal = {signal: 'SIGTERM', expect: 'emergency', at: SENT_AT, job: 'job', before: []};

/** A cadence of `every` steps, learned, as the cadence module computes it. */
function cadence(every: number, nextStep: number | null = null): SaveCadence {
	return {
		everySteps: every,
		everySeconds: null,
		from: 'learned',
		source: 'test',
		stepsPerSecond: null,
		nextStep,
		nextAt: null,
		overdueAt: null,
		learning: null,
		suspended: null,
	};
}

const kinds = (list: readonly ScannedCheckpoint[]) => list.map(c => [c.name, c.kind, c.kindNote ?? null]);

describe('signalSaves', () => {
	it('the first new save after the save signal is manual, after the emergency signal emergency', () => {
		const saved = ckpt(714, {time: SENT_AT + 1000});
		expect(kinds(signalSaves([ckpt(600), saved], [usr1], null))).toEqual([
			['ckpt_step600.pt', 'unknown', null],
			['ckpt_step714.pt', 'manual', `after traintop's SIGUSR1 at ${CLOCK}`],
		]);
		expect(signalSaves([saved], [term], null)[0]).toMatchObject({kind: 'emergency'});
	});

	it('a reason that says only "signal" follows the signal sent', () => {
		const saved = ckpt(714, {time: SENT_AT, layout: 'seed', reason: 'signal'});
		expect(kinds(signalSaves([saved], [usr1], cadence(300)))).toEqual([
			['ckpt_step714.pt', 'manual', `the job says "signal": after traintop's SIGUSR1 at ${CLOCK}`],
		]);
		expect(signalSaves([saved], [term], null)[0]).toMatchObject({kind: 'emergency'});
		// No signal of ours: unknown, not emergency.
		expect(signalSaves([saved], [], null)[0]).toMatchObject({kind: 'unknown'});
	});

	it('a periodic save off the cadence (step 714 on 300) is the signal’s; one on it is passed over', () => {
		const offCadence = ckpt(714, {time: SENT_AT + 2000, kind: 'periodic'});
		const onCadence = ckpt(600, {time: SENT_AT + 500, kind: 'periodic'});
		expect(kinds(signalSaves([onCadence, offCadence], [usr1], cadence(300)))).toEqual([
			['ckpt_step600.pt', 'periodic', null],
			[
				'ckpt_step714.pt',
				'manual',
				`step 714 is off the job's cadence (every 300): after traintop's SIGUSR1 at ${CLOCK}`,
			],
		]);
		// The cadence unknown: the job called it periodic, and nothing says otherwise.
		expect(signalSaves([offCadence], [usr1], null)[0]).toMatchObject({kind: 'periodic'});
	});

	it('an unknown save on the cadence stays ambiguous, and says so; the cadence may be anchored off 0', () => {
		const onCadence = ckpt(900, {time: SENT_AT + 500});
		expect(kinds(signalSaves([onCadence], [usr1], cadence(300)))).toEqual([
			[
				'ckpt_step900.pt',
				'unknown',
				`step 900 is also a periodic step (every 300): may be the save after traintop's SIGUSR1 at ${CLOCK}`,
			],
		]);
		// Saves at 150, 450, 750…: 900 is off it, so it is the signal's.
		expect(signalSaves([onCadence], [usr1], cadence(300, 1050))[0]).toMatchObject({kind: 'manual'});
	});

	it('never a save seen before the signal, one written before it, one past the window, a copy, or one answered', () => {
		const seen = ckpt(700, {time: SENT_AT + 10});
		const older = ckpt(701, {time: SENT_AT - 5000});
		const late = ckpt(702, {time: SENT_AT + SIGNAL_SAVE_WINDOW_MS + 1});
		const last = ckpt(703, {name: 'last.ckpt', time: SENT_AT + 20, kind: 'last'});
		const sent = {...usr1, before: [seen.path]};
		expect(signalSaves([seen, older, late, last], [sent], null).map(c => c.kind)).toEqual([
			'unknown',
			'unknown',
			'unknown',
			'last',
		]);
		// Two signals, two saves: each its own, in order.
		const first = ckpt(714, {time: SENT_AT + 1000});
		const second = ckpt(715, {time: SENT_AT + 2000});
		const later = {...term, at: SENT_AT + 1500};
		expect(signalSaves([first, second], [usr1, later], null).map(c => c.kind)).toEqual(['manual', 'emergency']);
	});

	it('a save of several files of one step: each of them answers the signal', () => {
		const model = ckpt(714, {name: 'model_step714.pt', time: SENT_AT + 100});
		const optim = ckpt(714, {name: 'optim_step714.pt', time: SENT_AT + 300});
		const next = ckpt(715, {time: SENT_AT + 400});
		expect(signalSaves([model, optim, next], [usr1], null).map(c => c.kind)).toEqual(['manual', 'manual', 'unknown']);
	});

	it('once answered, always by that save: after retention deleted it, the next save is not taken for it', () => {
		const asked = ckpt(714, {time: SENT_AT + 100});
		const [noted] = withAnswers([ckpt(600), asked], [usr1], null);
		expect(noted).toMatchObject({answeredBy: [asked.path]});
		// Unanswered signals, and those answered before, stay as they are (the same array when nothing is new).
		const twice = [noted!];
		expect(withAnswers([asked], twice, null)).toBe(twice);
		const next = ckpt(715, {time: SENT_AT + 60_000});
		expect(signalSaves([next], [noted!], null)[0]).toMatchObject({kind: 'unknown'});
		expect(signalSaves([asked, next], [noted!], null).map(c => c.kind)).toEqual(['manual', 'unknown']);
	});

	it('a save the job named manual or emergency answers the signal as it is', () => {
		const manual = ckpt(714, {time: SENT_AT + 100, kind: 'manual'});
		const next = ckpt(715, {time: SENT_AT + 200});
		expect(kinds(signalSaves([manual, next], [term], null))).toEqual([
			['ckpt_step714.pt', 'manual', null],
			['ckpt_step715.pt', 'unknown', null],
		]);
	});
});

describe('buildIndex with signals', () => {
	it('relabels before everything else: a manual save is no part of the cadence', () => {
		const saves = [ckpt(300, {time: T0}), ckpt(600, {time: T0 + 60_000}), ckpt(714, {time: SENT_AT})];
		const scan = {runDir: '/run', layouts: ['generic'], checkpoints: saves, groups: [], warnings: []};
		const index = buildIndex(scan, {keep: null, now: SENT_AT + 1000, disk: null, signals: [usr1]});
		expect(index.checkpoints.map(c => c.kind)).toEqual(['unknown', 'unknown', 'manual']);
		expect(index.lastSave).toMatchObject({time: SENT_AT, periodicTime: T0 + 60_000, medianIntervalS: 60});
		const plain = buildIndex(scan, {keep: null, now: SENT_AT + 1000, disk: null});
		expect(plain.lastSave?.periodicTime).toBe(SENT_AT);
	});
});

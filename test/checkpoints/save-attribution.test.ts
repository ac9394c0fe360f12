// Which new checkpoint is the save that was asked for (src/checkpoints/save-attribution.ts): pure, on hand-made ones.

import {describe, expect, it} from 'vitest';
import {
	firstOther,
	matchSave,
	settle,
	unattributed,
	type SaveExpectation,
} from '../../src/checkpoints/save-attribution.js';
import type {Checkpoint, CheckpointKind} from '../../src/core/types.js';

function ckpt(name: string, kind: CheckpointKind): Checkpoint {
	return {
		path: `/run/checkpoints/${name}`,
		name,
		layout: 'seed',
		step: null,
		epoch: null,
		time: 0,
		bytes: 1,
		writeS: null,
		status: 'complete',
		kind,
		loss: null,
		metric: null,
		group: 'seed:checkpoints',
		warnings: [],
		retention: 'keep',
	};
}

describe('matchSave', () => {
	it.each([
		['manual', 'manual', 'expected'],
		['emergency', 'emergency', 'expected'],
		['unknown', 'manual', 'maybe'],
		['unknown', 'emergency', 'maybe'],
		['periodic', 'manual', 'other'],
		['periodic', 'emergency', 'other'],
		['emergency', 'manual', 'other'],
		['manual', 'emergency', 'other'],
		['last', 'manual', 'other'],
		['best', 'emergency', 'other'],
	] as const)('a %s checkpoint when %s is expected: %s', (kind, wanted, match) => {
		expect(matchSave(kind, wanted)).toBe(match);
	});
});

describe('settle', () => {
	const periodic = ckpt('p', 'periodic');
	const manual = ckpt('m', 'manual');
	const unknown = ckpt('u', 'unknown');
	const emergency = ckpt('e', 'emergency');

	it.each([
		{name: 'nothing new: keep waiting', fresh: [], asked: 'manual', want: null},
		{name: 'only another kind: keep waiting', fresh: [periodic, emergency], asked: 'manual', want: null},
		{
			name: 'the expected kind, after another one',
			fresh: [periodic, manual],
			asked: 'manual',
			want: {checkpoint: manual, attributed: true, note: null},
		},
		{
			name: 'the expected kind wins over an unknown one before it',
			fresh: [unknown, emergency],
			asked: 'emergency',
			want: {checkpoint: emergency, attributed: true, note: null},
		},
		{
			name: 'an unknown kind when a manual save is expected',
			fresh: [periodic, unknown],
			asked: 'manual',
			want: {checkpoint: unknown, attributed: false, note: 'next checkpoint, may be periodic'},
		},
		{
			name: 'an unknown kind when an emergency save is expected',
			fresh: [unknown],
			asked: 'emergency',
			want: {
				checkpoint: unknown,
				attributed: false,
				note: 'next checkpoint, kind not recorded — may be the emergency save',
			},
		},
	] as const)('$name', ({fresh, asked, want}) => {
		expect(settle(fresh, asked as SaveExpectation)).toEqual(want);
	});
});

describe('settle and firstOther on a watcher that noted the signal (judged)', () => {
	// An agent asked with the save's kind has judged each save since (signal-saves.ts): the answer relabelled, one on the
	// cadence noted. An unknown one it left alone is one it had seen before the signal.
	const untouched = ckpt('ckpt_step600.pt', 'unknown');
	const onCadence = {...ckpt('ckpt_step900.pt', 'unknown'), kindNote: 'step 900 is also a periodic step (every 300)'};
	const answer = {...ckpt('ckpt_step1021.pt', 'manual'), kindNote: "after traintop's SIGUSR1 at 10:00:00"};

	it('an unknown save the watcher left alone is another save: keep waiting, remember it', () => {
		expect(settle([untouched], 'manual', true)).toBeNull();
		expect(firstOther([untouched], 'manual', true)).toBe(untouched);
		// Not judged (a raw signal the agent works out for itself): it may be the one, as before.
		expect(settle([untouched], 'manual')).toMatchObject({checkpoint: untouched, attributed: false});
	});

	it('the answer after it is attributed; one the watcher noted on the cadence is still a maybe', () => {
		expect(settle([untouched, answer], 'manual', true)).toEqual({checkpoint: answer, attributed: true, note: null});
		expect(settle([untouched, onCadence], 'manual', true)).toMatchObject({checkpoint: onCadence, attributed: false});
	});
});

describe('firstOther', () => {
	it.each([
		{fresh: [], want: null},
		{fresh: [ckpt('m', 'manual')], want: null},
		{fresh: [ckpt('u', 'unknown'), ckpt('p1', 'periodic'), ckpt('p2', 'periodic')], want: 'p1'},
		// last.ckpt is rewritten with every periodic save: the save itself names the kind better.
		{fresh: [ckpt('last.ckpt', 'last'), ckpt('epoch=3.ckpt', 'periodic')], want: 'epoch=3.ckpt'},
		{fresh: [ckpt('last.ckpt', 'last')], want: 'last.ckpt'},
	])('$want', ({fresh, want}) => {
		expect(firstOther(fresh, 'manual')?.name ?? null).toBe(want);
	});
});

describe('unattributed', () => {
	const periodic = ckpt('checkpoint_step_100_20260101_120000', 'periodic');

	it.each([
		{
			other: periodic,
			asked: 'manual',
			timeoutMs: 60_000,
			note: 'no manual checkpoint within 60 s; the next one (checkpoint_step_100_20260101_120000) is periodic',
		},
		{
			other: periodic,
			asked: 'emergency',
			timeoutMs: 2500,
			note: 'no emergency checkpoint within 2.5 s; the next one (checkpoint_step_100_20260101_120000) is periodic',
		},
		{
			other: periodic,
			asked: 'manual',
			timeoutMs: 300_000,
			note: 'no manual checkpoint within 5 min; the next one (checkpoint_step_100_20260101_120000) is periodic',
		},
		{
			// A 90 s timeout is 1 m 30 s, never rounded to "2 min".
			other: periodic,
			asked: 'manual',
			timeoutMs: 90_000,
			note: 'no manual checkpoint within 1 m 30 s; the next one (checkpoint_step_100_20260101_120000) is periodic',
		},
		{
			other: periodic,
			asked: 'manual',
			timeoutMs: null,
			note: 'no manual checkpoint before the watch stopped; the next one (checkpoint_step_100_20260101_120000) is periodic',
		},
		{
			other: ckpt('last.ckpt', 'last'),
			asked: 'manual',
			timeoutMs: 60_000,
			note: 'no manual checkpoint within 60 s; the next one (last.ckpt) is a copy of the last save (last)',
		},
	] as const)('$note', ({other, asked, timeoutMs, note}) => {
		expect(unattributed(other, asked, timeoutMs)).toEqual({checkpoint: other, attributed: false, note});
	});

	it('nothing new at all: no checkpoint, no note', () => {
		expect(unattributed(null, 'manual', 60_000)).toEqual({checkpoint: null, attributed: false, note: null});
	});
});

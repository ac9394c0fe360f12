// The checkpoints pane's header text (src/ui/panes/checkpoint-rows.ts): what the last-save part says, above all when
// OVERDUE (the next periodic save late by the cadence) stands next to a newer manual or emergency save.

import {describe, expect, it} from 'vitest';
import type {CheckpointIndex, SaveCadence} from '../../../src/core/types.js';
import {localTimeShort} from '../../../src/format/time.js';
import {headerParts} from '../../../src/ui/panes/checkpoint-rows.js';
import {checkpoint, checkpointIndex, GIB, MIB, NOW} from '../../helpers/checkpoint-data.js';

/** The last-save part of the header (it comes right after the count). */
function lastSavePart(index: CheckpointIndex, compact = false): {text: string; alarm: boolean} | undefined {
	return headerParts(index, compact)[1];
}

/** Every 100 steps at 5 steps/s: step 400 was due 110 s ago, 20 s after step 300. */
const cadence: SaveCadence = {
	everySteps: 100,
	everySeconds: 20,
	from: 'learned',
	source: '3 periodic saves seen',
	stepsPerSecond: 5,
	nextStep: 400,
	nextAt: NOW - 110_000,
	learning: null,
	overdueAt: NOW - 100_000,
	suspended: null,
};

/** Periodic saves every 20 s up to 130 s ago, then one save of `kind` 5 s ago; overdue as given. */
function afterPeriodic(kind: 'manual' | 'emergency' | 'periodic', overdue: boolean): CheckpointIndex {
	return checkpointIndex({
		checkpoints: [
			checkpoint(100, 0, {time: NOW - 170_000}),
			checkpoint(200, 0, {time: NOW - 150_000}),
			checkpoint(300, 0, {time: NOW - 130_000}),
			checkpoint(310, 0, {time: NOW - 5000, kind}),
		],
		lastSave: {
			time: NOW - 5000,
			ageS: 5,
			medianIntervalS: 20,
			periodicTime: kind === 'periodic' ? NOW - 5000 : NOW - 130_000,
			overdue,
		},
		cadence,
		scannedAt: NOW,
	});
}

const due = `~${localTimeShort(NOW - 110_000, NOW)}`;

describe('headerParts: the last save', () => {
	it('OVERDUE names the save that has not come and how late, then the newer manual save', () => {
		expect(lastSavePart(afterPeriodic('manual', true))).toEqual({
			text: `OVERDUE: the save due at step 400 (${due}) has not come; 1 m 50 s late (every 100 steps at 5.0 steps/s); last save (manual) 5 s ago`,
			alarm: true,
		});
		// No next-save part beside an OVERDUE: it says the same.
		expect(headerParts(afterPeriodic('manual', true), false).filter(p => p.text.startsWith('next save'))).toEqual([]);
	});

	it('the compact form gives how late only', () => {
		expect(lastSavePart(afterPeriodic('emergency', true), true)).toEqual({
			text: 'OVERDUE 2 min late; last save (emergency) 5 s ago',
			alarm: true,
		});
	});

	it('not overdue: the last save of any kind, then the next save expected', () => {
		const onTime = {...afterPeriodic('manual', false), cadence: {...cadence, nextAt: NOW + 60_000}};
		expect(headerParts(onTime, false).slice(1, 3)).toEqual([
			{text: 'last save (manual) 5 s ago', alarm: false},
			{text: 'next save ~step 400 in 60 s (every 100 steps at 5.0 steps/s)', alarm: false},
		]);
		expect(headerParts(onTime, true)[2]).toEqual({text: 'next save ~step 400 in 60 s', alarm: false});
	});

	it('while learning, says so and why', () => {
		const learning = {
			...afterPeriodic('periodic', false),
			cadence: {...cadence, learning: 'learning: 1 periodic save seen, 3 needed', overdueAt: null},
		};
		expect(headerParts(learning, false)[2]).toEqual({
			text: 'cadence: learning (1 periodic save seen, 3 needed)',
			alarm: false,
		});
		expect(headerParts(learning, true)[2]).toEqual({text: 'cadence: learning', alarm: false});
	});

	it("an index without a cadence (built by hand): the last periodic save's age", () => {
		const {cadence: _none, ...bare} = afterPeriodic('periodic', true);
		expect(lastSavePart(bare)?.text).toBe('OVERDUE: last periodic save 5 s ago');
	});

	it('waiting for RUN_DIR: said instead of "no complete save yet"', () => {
		const waiting = checkpointIndex({checkpoints: [], lastSave: null, warnings: ['waiting for RUN_DIR to appear']});
		expect(lastSavePart(waiting)?.text).toBe('waiting for RUN_DIR to appear');
	});

	it('the first scan still running: said instead of "no complete save yet", and why it failed if it did', () => {
		const scanning = {...checkpointIndex({checkpoints: [], lastSave: null, warnings: []}), scanning: true as const};
		// Not "0" checkpoints: none is known yet.
		expect(headerParts(scanning, false)).toEqual([{text: 'scanning the run dir…', alarm: false}]);
		const failed = {...scanning, warnings: ['scan failed: EACCES: permission denied']};
		expect(headerParts(failed, false)).toEqual([{text: 'scan failed: EACCES: permission denied', alarm: false}]);
	});

	it('no complete save yet', () => {
		expect(lastSavePart(checkpointIndex({checkpoints: [], lastSave: null}))).toEqual({
			text: 'no complete save yet',
			alarm: false,
		});
	});
});

describe('headerParts: the saves seen since traintop started', () => {
	const texts = (index: CheckpointIndex, seen: number) => headerParts(index, false, seen).map(part => part.text);

	it('after the last save, before the disk; none said before the first', () => {
		expect(texts(checkpointIndex(), 50)).toEqual([
			'5',
			'last save 30 min ago',
			'50 saves seen',
			'20.0 GiB free of 100 GiB',
			'room for ~40 saves',
		]);
		expect(texts(checkpointIndex(), 1)).toContain('1 save seen');
		expect(texts(checkpointIndex(), 0).join(' ')).not.toContain('seen');
	});

	it('after DISK FULL: a line cut at the pane width must drop the count, not the alarm', () => {
		const full = checkpointIndex({
			disk: {freeBytes: GIB, totalBytes: 100 * GIB, avgCheckpointBytes: 512 * MIB, savesUntilFull: 2},
		});
		expect(texts(full, 7).slice(2)).toEqual(['1.0 GiB free of 100 GiB', 'DISK FULL in ~2 saves', '7 saves seen']);
	});
});

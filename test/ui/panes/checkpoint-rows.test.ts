// The checkpoints pane's header text (src/ui/panes/checkpoint-rows.ts): what the last-save part says, above all when
// OVERDUE (counted from the last periodic save) stands next to a newer manual or emergency save.

import {describe, expect, it} from 'vitest';
import type {CheckpointIndex} from '../../../src/core/types.js';
import {headerParts} from '../../../src/ui/panes/checkpoint-rows.js';
import {checkpoint, checkpointIndex, GIB, MIB, NOW} from '../../helpers/checkpoint-data.js';

/** The last-save part of the header (it comes right after the count). */
function lastSavePart(index: CheckpointIndex, compact = false): {text: string; alarm: boolean} | undefined {
	return headerParts(index, compact)[1];
}

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
	});
}

describe('headerParts: the last save', () => {
	it('OVERDUE after a manual save gives the age of the last periodic save, then the manual one', () => {
		expect(lastSavePart(afterPeriodic('manual', true))).toEqual({
			text: 'OVERDUE: last periodic save 2 min ago (usually every 20 s); manual 5 s ago',
			alarm: true,
		});
	});

	it('names an emergency save the same way; the compact form leaves out the usual interval', () => {
		expect(lastSavePart(afterPeriodic('emergency', true), true)).toEqual({
			text: 'OVERDUE: last periodic save 2 min ago; emergency 5 s ago',
			alarm: true,
		});
	});

	it('the periodic save is older than the last save by the gap between their times, not by the age alone', () => {
		const index = afterPeriodic('manual', true);
		const late = {...index, lastSave: {...index.lastSave!, ageS: 600, periodicTime: NOW - 4 * 3600_000}};
		// 600 s + (4 h − 5 s) since the periodic save: 4.2 h.
		expect(lastSavePart(late)?.text).toBe(
			'OVERDUE: last periodic save 4.2 h ago (usually every 20 s); manual 10 min ago',
		);
	});

	it('OVERDUE when the last save is itself the periodic one: the plain last-save text', () => {
		expect(lastSavePart(afterPeriodic('periodic', true))).toEqual({
			text: 'OVERDUE: last save 5 s ago (usually every 20 s)',
			alarm: true,
		});
	});

	it('OVERDUE figures that say why: 2.4 s against a usual 1.5 s, not "2 s ago (usually every 2 s)"', () => {
		const index = afterPeriodic('periodic', true);
		const late = {...index, lastSave: {...index.lastSave!, ageS: 2.4, medianIntervalS: 1.5, periodicTime: NOW - 2400}};
		expect(lastSavePart({...late, lastSave: {...late.lastSave, time: NOW - 2400}})?.text).toBe(
			'OVERDUE: last save 2.4 s ago (usually every 1.5 s)',
		);
		const afterManual = afterPeriodic('manual', true);
		const manual = {
			...afterManual,
			lastSave: {...afterManual.lastSave!, ageS: 1, medianIntervalS: 15.5 * 60, periodicTime: NOW - 1_402_000},
		};
		// 23.3 min since the periodic save against 15.5 min (23.25): "23 min (usually every 16 min)" would hide it.
		expect(lastSavePart(manual)?.text).toBe(
			'OVERDUE: last periodic save 23.3 min ago (usually every 15.5 min); manual 1 s ago',
		);
	});

	it('not overdue: the last save of any kind, without a word about the periodic one', () => {
		expect(lastSavePart(afterPeriodic('manual', false))).toEqual({
			text: 'last save 5 s ago (usually every 20 s)',
			alarm: false,
		});
	});

	it('a newest save whose checkpoint is no longer listed is called the last save', () => {
		const index = afterPeriodic('manual', true);
		const gone = {...index, checkpoints: index.checkpoints.slice(0, 3)};
		expect(lastSavePart(gone)?.text).toBe(
			'OVERDUE: last periodic save 2 min ago (usually every 20 s); last save 5 s ago',
		);
	});

	it('an index built before periodicTime existed counts from the last save, as lastSaveAt does', () => {
		const index = afterPeriodic('manual', true);
		const {periodicTime: _dropped, ...old} = index.lastSave!;
		const legacy = {...index, lastSave: old} as unknown as CheckpointIndex;
		expect(lastSavePart(legacy)?.text).toBe('OVERDUE: last save 5 s ago (usually every 20 s)');
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
			'last save 30 min ago (usually every 15 min)',
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

import {describe, expect, test} from 'vitest';
import {alertEvents, EVENT_PLACE, eventPlace, keepRecent} from '../../src/core/event-places.js';
import type {JobEvent, JobEventKind} from '../../src/core/job-types.js';

// Where each job event shows: the rule is one table, and the bounded history keeps each place's newest apart.

function event(time: number, kind: JobEventKind, level: JobEvent['level'] = 'ok'): JobEvent {
	return {time, kind, job: 'torchrun:4200', rank: null, pid: null, level, text: `${kind} at ${time}`};
}

describe('the place of each kind of event', () => {
	test('a save that landed (ok) goes to the checkpoints pane; every other kind, ok included, is an alert', () => {
		for (const kind of Object.keys(EVENT_PLACE) as JobEventKind[])
			expect(eventPlace(event(0, kind)), kind).toBe(kind === 'save-seen' ? 'checkpoints' : 'alerts');
	});

	test('at WARN or CRIT every kind is an alert: a save judged a problem is one', () => {
		for (const kind of Object.keys(EVENT_PLACE) as JobEventKind[]) {
			expect(eventPlace(event(0, kind, 'warn')), kind).toBe('alerts');
			expect(eventPlace(event(0, kind, 'critical')), kind).toBe('alerts');
		}
	});

	test('alertEvents keeps the problems and their ends, in order, without the saves', () => {
		const events = [
			event(1, 'job-stalled', 'critical'),
			event(2, 'save-seen'),
			event(3, 'job-resumed'),
			event(4, 'save-seen'),
		];
		expect(alertEvents(events).map(e => e.time)).toEqual([1, 3]);
	});
});

describe('keepRecent: the newest of each place', () => {
	test('60 saves after a rank death keep the death, and the newest 50 saves', () => {
		const died = event(0, 'rank-exited', 'critical');
		const saves = Array.from({length: 60}, (_, i) => event(i + 1, 'save-seen'));
		const kept = keepRecent([died, ...saves], 50);
		expect(kept[0]).toBe(died);
		expect(kept.slice(1).map(e => e.time)).toEqual(saves.slice(10).map(e => e.time));
	});

	test('oldest first, each place bounded on its own', () => {
		const events = [
			event(1, 'overdue', 'critical'),
			event(2, 'save-seen'),
			event(3, 'rank-stopped', 'warn'),
			event(4, 'save-seen'),
			event(5, 'rank-resumed'),
		];
		expect(keepRecent(events, 2).map(e => e.time)).toEqual([2, 3, 4, 5]);
		expect(keepRecent(events, 1).map(e => e.time)).toEqual([4, 5]);
		expect(keepRecent(events, 50)).toEqual(events);
	});
});

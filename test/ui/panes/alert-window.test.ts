import {describe, expect, test} from 'vitest';
import type {AlertEntry} from '../../../src/ui/panes/alert-lines.js';
import {alertEntries, alertsScrollMax, alertWindow} from '../../../src/ui/panes/alert-window.js';
import type {JobEvent} from '../../../src/core/types.js';
import {alert} from '../fixtures.js';

// Which entries the alerts pane draws: newest first from the scroll, the newest CRIT still standing pinned on the
// first line whenever the window does not hold it, and a scroll bound that brings the oldest entry in.

/** Entries oldest first, by letter: `c` a RAM CRIT, `w` a GPU WARN, `o` that GPU back to ok; minutes apart. */
function entries(letters: string): AlertEntry[] {
	const alerts = [...letters].map((letter, i) => {
		const minutesAgo = letters.length - i;
		if (letter === 'c') return alert(minutesAgo, 'ram', 'warn', 'critical', 96);
		if (letter === 'w') return alert(minutesAgo, 'gpu0', 'ok', 'warn', 82);
		return alert(minutesAgo, 'gpu0', 'warn', 'ok', 40);
	});
	return alertEntries(alerts, []);
}

/** The window as letters: the pinned one first in brackets, then those shown. */
function drawn(list: readonly AlertEntry[], rows: number, scroll: number): string {
	const view = alertWindow(list, rows, scroll);
	const letter = (entry: AlertEntry) => {
		if (entry.kind !== 'alert') return 'e';
		return entry.alert.to === 'critical' ? 'c' : entry.alert.to === 'warn' ? 'w' : 'o';
	};
	const index = (entry: AlertEntry) => list.length - 1 - list.indexOf(entry);
	const pinned = view.pinned ? `[${letter(view.pinned)}${index(view.pinned)}] ` : '';
	return `${pinned}${view.shown.map(e => `${letter(e)}${index(e)}`).join(' ')}`;
}

describe('alertWindow', () => {
	// Newest first: o0 w1 o2 w3 o4 w5 c6.
	const list = entries('cwowowo');

	test('all fit: all, newest first, nothing pinned', () => {
		expect(drawn(list, 7, 0)).toBe('o0 w1 o2 w3 o4 w5 c6');
		expect(drawn(list, 9, 3)).toBe('o0 w1 o2 w3 o4 w5 c6');
	});

	test('more than fit: the CRIT pinned above the newest; scrolling moves the rest under it', () => {
		expect(drawn(list, 3, 0)).toBe('[c6] o0 w1');
		expect(drawn(list, 3, 1)).toBe('[c6] w1 o2');
		expect(drawn(list, 3, 3)).toBe('[c6] w3 o4');
	});

	test('the window that holds the CRIT pins nothing; the scroll stops with the oldest in sight', () => {
		// The CRIT is the oldest: the last window holds it.
		expect(alertsScrollMax(list, 3)).toBe(4);
		expect(drawn(list, 3, 4)).toBe('o4 w5 c6');
		expect(drawn(list, 3, 99)).toBe('o4 w5 c6');
		// The CRIT is the newest: pinned above the last window, which has a row fewer: one step more.
		const newer = entries('wowowoc');
		expect(drawn(newer, 3, 0)).toBe('c0 o1 w2');
		expect(drawn(newer, 3, 1)).toBe('[c0] o1 w2');
		expect(alertsScrollMax(newer, 3)).toBe(5);
		expect(drawn(newer, 3, 99)).toBe('[c0] o5 w6');
	});

	test('a CRIT that its metric has left (back to WARN or ok) is not pinned; an older one still standing is', () => {
		const left = alertEntries(
			[
				alert(9, 'gpu1', 'warn', 'critical', 95),
				alert(8, 'ram', 'warn', 'critical', 96),
				alert(7, 'ram', 'critical', 'warn', 80),
				alert(6, 'gpu0', 'ok', 'warn', 82),
				alert(5, 'gpu0', 'warn', 'ok', 40),
			],
			[],
		);
		const view = alertWindow(left, 2, 0);
		expect(view.pinned?.kind === 'alert' && view.pinned.alert.metric).toBe('gpu1');
		const none = alertWindow(left.slice(1), 2, 0);
		expect(none.pinned).toBeNull();
	});

	test('a CRIT event stands (nothing in the list takes it back); saves are not entries', () => {
		const died: JobEvent = {
			time: 1,
			kind: 'job-ended',
			job: 'torchrun:1',
			rank: null,
			pid: null,
			level: 'critical',
			text: 'job torchrun:1 ended, exit 1',
		};
		const saves: JobEvent[] = Array.from({length: 50}, (_, i) => ({
			...died,
			time: 2 + i,
			kind: 'save-seen',
			level: 'ok',
			text: `saved ${i}`,
		}));
		const list2 = alertEntries([alert(0.001, 'gpu0', 'ok', 'warn', 82)], [died, ...saves]);
		expect(list2).toHaveLength(2);
		expect(alertWindow(list2, 1, 0).pinned?.kind).toBe('event');
	});

	test('title only (no rows): the CRIT still standing is what it carries', () => {
		expect(drawn(list, 0, 0)).toBe('[c6] ');
		expect(alertsScrollMax(list, 0)).toBe(0);
	});
});

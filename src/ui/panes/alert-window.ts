import {alertEvents} from '../../core/event-places.js';
import type {Alert, JobEvent} from '../../core/types.js';
import {type AlertEntry, mergeByTime} from './alert-lines.js';

// Which of the alerts pane's entries are drawn: newest first, from where the user scrolled to (`[` older, `]` newer),
// and the newest CRIT that still stands pinned on the first line whenever the window does not hold it, so that
// neither newer entries nor scrolling ever take it out of sight. Pure, so that the reducer clamps the scroll by the same rule the pane draws.

export interface AlertWindow {
	/** The newest CRIT still standing, drawn first, when the window does not hold it; else null. */
	readonly pinned: AlertEntry | null;
	/** The entries drawn (below the pinned one), newest first. */
	readonly shown: readonly AlertEntry[];
	/** Position of the first of `shown` among all entries, newest first (0: the newest): the scroll as used. */
	readonly from: number;
}

/** The alerts pane's entries, oldest first: the level changes and the events that are alerts (event-places.ts). */
export function alertEntries(alerts: readonly Alert[], events: readonly JobEvent[]): AlertEntry[] {
	return mergeByTime(alerts, alertEvents(events));
}

/**
 * Position of the newest CRIT that still stands among entries listed newest first; -1 when none. A metric's CRIT
 * stands until that metric's next level change (back to WARN or ok: the gauge shows where it is now); a CRIT event
 * (a job that died, OVERDUE, a whole job stalled) has nothing that takes it back in this list, so it stands.
 */
function newestCrit(newestFirst: readonly AlertEntry[]): number {
	const changedSince = new Set<string>();
	for (const [i, entry] of newestFirst.entries()) {
		if (entry.kind === 'event') {
			if (entry.level === 'critical') return i;
			continue;
		}
		if (entry.level === 'critical' && !changedSince.has(entry.alert.metric)) return i;
		changedSince.add(entry.alert.metric);
	}
	return -1;
}

/**
 * How far the pane scrolls (`entries` oldest first, `rows` under the title): until its oldest entry is in sight. When
 * the newest CRIT is above the last window it is pinned and takes a row of it: one step more brings the oldest in.
 */
export function alertsScrollMax(entries: readonly AlertEntry[], rows: number): number {
	if (rows <= 0 || entries.length <= rows) return 0;
	const last = entries.length - rows;
	const crit = newestCrit([...entries].reverse());
	return crit >= 0 && crit < last ? last + 1 : last;
}

/** `entries` oldest first; `rows` under the title; `scroll` entries skipped from the newest (clamped here). */
export function alertWindow(entries: readonly AlertEntry[], rows: number, scroll: number): AlertWindow {
	const newestFirst = [...entries].reverse();
	const crit = newestCrit(newestFirst);
	const pin = crit < 0 ? null : newestFirst[crit]!;
	// Title only: the newest CRIT goes on it, if there is one.
	if (rows <= 0) return {pinned: pin, shown: [], from: 0};
	const from = Math.min(Math.max(0, Math.floor(scroll)), alertsScrollMax(entries, rows));
	if (pin === null || (crit >= from && crit < from + rows))
		return {pinned: null, shown: newestFirst.slice(from, from + rows), from};
	return {pinned: pin, shown: newestFirst.slice(from, from + rows - 1), from};
}

import type {Alert, JobEvent, Level} from '../../core/types.js';
import {isRising, LEVEL_TAG, LEVEL_WORD} from '../../format/levels.js';
import {localTimeShort} from '../../format/time.js';
import {formatPercent, formatThreshold} from '../../format/units.js';
import {printable} from '../../format/printable.js';

// Pure text for AlertsPane. Shorter than the headless alert line (formatAlertLine), which spells
// out the warn margin the pane does not know and takes ~90 columns.

/** One line of the pane: its time, a mark (▲/▼ for a level change, • for a job event), the level tag, the rest. */
export interface AlertLineText {
	readonly time: string;
	readonly mark: string;
	readonly tag: string;
	readonly detail: string;
}

/**
 * `10:00:30 ▲ CRIT gpu0 91.2%  was WARN · threshold 90%`; ▲/▼ and the words read without colour.
 * The time is of day for today (as `now` sees it), the full local date and time for older changes.
 */
export function alertText(alert: Alert, now: number, compact: boolean): AlertLineText {
	const was = `was ${LEVEL_WORD[alert.from]}`;
	return {
		time: localTimeShort(alert.time, now),
		mark: isRising(alert.from, alert.to) ? '▲' : '▼',
		tag: LEVEL_TAG[alert.to],
		detail: `${alert.metric} ${formatPercent(alert.value)}  ${was}${compact ? '' : ` · threshold ${formatThreshold(alert.threshold)}`}`,
	};
}

/** `12:03:11 • WARN job torchrun:4200 ended, exit 99 — saved for requeue`: the event's own words. */
export function eventText(event: JobEvent, now: number): AlertLineText {
	return {time: localTimeShort(event.time, now), mark: '•', tag: LEVEL_TAG[event.level], detail: printable(event.text)};
}

/** A level change or a job event, as the pane lists them. */
export type AlertEntry =
	| {readonly kind: 'alert'; readonly time: number; readonly level: Level; readonly alert: Alert}
	| {readonly kind: 'event'; readonly time: number; readonly level: Level; readonly event: JobEvent};

/**
 * Level changes and job events in one list, oldest first (both come oldest first). At the same time the level
 * change goes first: the tick judged the memory before it told the job's events.
 */
export function mergeByTime(alerts: readonly Alert[], events: readonly JobEvent[]): AlertEntry[] {
	const merged: AlertEntry[] = [];
	let a = 0;
	let e = 0;
	while (a < alerts.length || e < events.length) {
		const alert = alerts[a];
		const event = events[e];
		if (alert && (!event || alert.time <= event.time)) {
			merged.push({kind: 'alert', time: alert.time, level: alert.to, alert});
			a++;
		} else if (event) {
			merged.push({kind: 'event', time: event.time, level: event.level, event});
			e++;
		}
	}
	return merged;
}

import React from 'react';
import {Box, Text} from 'ink';
import type {Need, PaneDefinition} from './pane.js';
import Line from '../widgets/Line.js';
import type {Alert, JobEvent} from '../../core/types.js';
import {usePaint} from '../color.js';
import {LEVEL_COLOR} from '../../format/levels.js';
import {type AlertEntry, alertText, eventText} from './alert-lines.js';
import {alertEntries, alertWindow} from './alert-window.js';

export interface Props {
	/** Recent level changes, oldest first (snapshot.recentAlerts); drawn newest first. */
	readonly alerts: readonly Alert[];
	/**
	 * Recent job events, oldest first (snapshot.recentEvents); those that are alerts (core/event-places.ts: not the
	 * saves) are drawn among the level changes by time.
	 */
	readonly events?: readonly JobEvent[];
	/** Entries skipped from the newest (`[` and `]`); clamped to the list. */
	readonly scroll?: number;
	/** The keys scroll it (the one-node screen): the title says how when not all entries fit. */
	readonly scrollable?: boolean;
	/** Epoch ms: alerts of the same day show the time only. */
	readonly now: number;
	readonly width: number;
	/** Lines available; the pane never draws more. */
	readonly height: number;
	/** Narrow form: no threshold in each line. */
	readonly compact?: boolean;
}

const NO_EVENTS: readonly JobEvent[] = [];

/**
 * `11:50:00 ▲ CRIT gpu0 91.2%  was ok` or `12:03:11 • WARN job torchrun:4200 ended, exit 99 — …`, the mark
 * and level word in the level's colour.
 */
function EntryLine({
	entry,
	now,
	compact,
}: {
	readonly entry: AlertEntry;
	readonly now: number;
	readonly compact: boolean;
}) {
	const paint = usePaint();
	const line = entry.kind === 'alert' ? alertText(entry.alert, now, compact) : eventText(entry.event, now);
	return (
		<>
			{line.time}{' '}
			<Text color={paint(LEVEL_COLOR[entry.level])} bold={entry.level !== 'ok'}>
				{line.mark} {line.tag}
			</Text>{' '}
			{line.detail}
		</>
	);
}

function plural(count: number, word: string): string {
	return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** `3 level changes`, `2 events`, `3 level changes, 2 events`. */
function summary(alerts: number, events: number): string {
	const changes = plural(alerts, 'level change');
	if (events === 0) return changes;
	const told = plural(events, 'event');
	return alerts === 0 ? told : `${changes}, ${told}`;
}

/**
 * Where the window is and how to move it, after the counts: `, newest 3 ([ ] scroll)`, `, 4–6 of 9, CRIT pinned
 * ([ ] scroll)`.
 */
function position(from: number, shown: number, count: number, pinned: boolean, scrollable: boolean): string {
	const where = from === 0 ? `newest ${shown}` : `${from + 1}–${from + shown} of ${count}`;
	return `, ${where}${pinned ? ', CRIT pinned' : ''}${scrollable ? ' ([ ] scroll)' : ''}`;
}

/**
 * A title with the number of level changes and events, then the newest of them, one a line, merged by time; `[` and
 * `]` scroll them, and when they do not all fit the newest CRIT stays on the first line. With a single line, the
 * newest (or that CRIT) goes on the title line itself.
 */
function AlertsPane({
	alerts,
	events = NO_EVENTS,
	scroll = 0,
	scrollable = false,
	now,
	width,
	height,
	compact = false,
}: Props) {
	const entries = React.useMemo(() => alertEntries(alerts, events), [alerts, events]);
	if (height <= 0) return null;
	const room = height - 1;
	const view = alertWindow(entries, room, scroll);
	const newest = entries.at(-1);
	const told = summary(alerts.length, entries.length - alerts.length);
	let title: React.ReactNode;
	if (newest === undefined) title = 'none since start';
	else if (room === 0) {
		const crit = view.pinned !== null && view.pinned !== newest;
		title = (
			<>
				{`${told} · ${crit ? 'newest CRIT' : 'latest'} `}
				<EntryLine entry={view.pinned ?? newest} now={now} compact={compact} />
			</>
		);
	} else
		title =
			view.shown.length < entries.length
				? `${told}${position(view.from, view.shown.length, entries.length, view.pinned !== null, scrollable)}`
				: told;
	const shown = view.pinned && room > 0 ? [view.pinned, ...view.shown] : view.shown;
	return (
		<Box flexDirection="column" width={width}>
			<Line width={width}>
				<Text bold>ALERTS</Text> {title}
			</Line>
			{shown.map((entry, i) => (
				<Line key={`${entry.time}-${entry.kind}-${i}`} width={width}>
					<EntryLine entry={entry} now={now} compact={compact} />
				</Line>
			))}
		</Box>
	);
}

const Memo = React.memo(AlertsPane);
export default Memo;

/** The title (with the counts), then one line per level change or event. */
export function alertsNeed(lines: number): Need {
	return {min: 1, want: 1 + lines};
}

export const alertsPane: PaneDefinition = {
	id: 'alerts',
	wideFrom: 70,
	firstRows: 3,
	need: data => alertsNeed(alertEntries(data.snapshot.recentAlerts, data.snapshot.recentEvents).length),
	render: ({snapshot, alertsScroll}, box) => (
		<Memo
			alerts={snapshot.recentAlerts}
			events={snapshot.recentEvents}
			scroll={alertsScroll}
			scrollable
			now={snapshot.time}
			width={box.width}
			height={box.height}
			compact={box.compact}
		/>
	),
};

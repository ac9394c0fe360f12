import React from 'react';
import {Box, Text} from 'ink';
import type {Need, PaneDefinition} from './pane.js';
import Line from '../widgets/Line.js';
import type {Alert} from '../../core/types.js';
import {usePaint} from '../color.js';
import {LEVEL_COLOR} from '../../format/levels.js';
import {alertText} from './alert-lines.js';

export interface Props {
	/** Recent level changes, oldest first (snapshot.recentAlerts); drawn newest first. */
	readonly alerts: readonly Alert[];
	/** Epoch ms: alerts of the same day show the time only. */
	readonly now: number;
	readonly width: number;
	/** Lines available; the pane never draws more. */
	readonly height: number;
	/** Narrow form: no threshold in each line. */
	readonly compact?: boolean;
}

/** `11:50:00 ▲ CRIT gpu0 91.2%  was ok`, the arrow and level word in the level's colour. */
function AlertLine({alert, now, compact}: {readonly alert: Alert; readonly now: number; readonly compact: boolean}) {
	const paint = usePaint();
	const line = alertText(alert, now, compact);
	return (
		<>
			{line.time}{' '}
			<Text color={paint(LEVEL_COLOR[alert.to])} bold={alert.to !== 'ok'}>
				{line.arrow} {line.tag}
			</Text>{' '}
			{line.detail}
		</>
	);
}

/**
 * A title with the number of level changes, then the newest of them, one a line. With a single
 * line, the newest change goes on the title line itself.
 */
function AlertsPane({alerts, now, width, height, compact = false}: Props) {
	if (height <= 0) return null;
	const room = height - 1;
	const count = alerts.length;
	const newest = alerts.at(-1);
	const changes = `${count} level change${count === 1 ? '' : 's'}`;
	let title: React.ReactNode;
	if (newest === undefined) title = 'none since start';
	else if (room === 0)
		title = (
			<>
				{`${changes} · latest `}
				<AlertLine alert={newest} now={now} compact={compact} />
			</>
		);
	else title = count > room ? `${changes}, newest ${room}` : changes;
	const shown = room > 0 ? alerts.slice(-room).reverse() : [];
	return (
		<Box flexDirection="column" width={width}>
			<Line width={width}>
				<Text bold>ALERTS</Text> {title}
			</Line>
			{shown.map((alert, i) => (
				<Line key={`${alert.time}-${alert.metric}-${i}`} width={width}>
					<AlertLine alert={alert} now={now} compact={compact} />
				</Line>
			))}
		</Box>
	);
}

const Memo = React.memo(AlertsPane);
export default Memo;

/** The title (with the count), then one line per level change. */
export function alertsNeed(alerts: number): Need {
	return {min: 1, want: 1 + alerts};
}

export const alertsPane: PaneDefinition = {
	id: 'alerts',
	wideFrom: 70,
	firstRows: 3,
	need: data => alertsNeed(data.snapshot.recentAlerts.length),
	render: ({snapshot}, box) => (
		<Memo
			alerts={snapshot.recentAlerts}
			now={snapshot.time}
			width={box.width}
			height={box.height}
			compact={box.compact}
		/>
	),
};

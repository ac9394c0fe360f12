import React from 'react';
import {Box, Text} from 'ink';
import type {DeadlineRisk} from '../../core/deadline-risk.js';
import {LEVEL_COLOR} from '../../format/levels.js';
import {schedulerEntry} from '../../scheduler/registry.js';
import type {SchedulerState} from '../../scheduler/types.js';
import type {JobLine} from '../../scheduler/view.js';
import {usePaint} from '../color.js';
import Line from '../widgets/Line.js';
import type {Need, PaneDefinition} from './pane.js';

// The job as its scheduler sees it: the scheduler's own lines (scheduler/view.ts; its state, time left, warning,
// the work at risk at the limit, its steps), drawn here. On the one-node screen from the snapshot, on top of the list
// of nodes from the freshest of the nodes' (ui/fleet/fleet-panes.tsx).

/** From this width the pane says more of the job on its first line (the scheduler's wide form). */
export const JOB_PANE_WIDE = 100;

export interface Props {
	/** The job as its scheduler sees it; null outside a scheduler's job (the pane then takes no rows). */
	readonly state: SchedulerState | null;
	/** The time left against the save cadence (Snapshot.deadlineRisk). */
	readonly risk: DeadlineRisk | null;
	readonly width: number;
	readonly height: number;
	readonly compact?: boolean;
}

/** The scheduler's lines for its state; none without a state or a view of that scheduler. */
function jobLines(state: SchedulerState | null, risk: DeadlineRisk | null, compact: boolean): JobLine[] {
	if (state === null) return [];
	return schedulerEntry(state.kind)?.view?.lines(state, risk, compact) ?? [];
}

function JobPane({state, risk, width, height, compact = false}: Props) {
	const paint = usePaint();
	const lines = jobLines(state, risk, compact).slice(0, Math.max(0, height));
	if (lines.length === 0) return null;
	return (
		<Box flexDirection="column" width={width}>
			{lines.map((line, i) => (
				<Line key={i} width={width} dim={line.stale === true}>
					<Text
						bold={i === 0 || line.level !== 'ok'}
						color={line.level === 'ok' ? undefined : paint(LEVEL_COLOR[line.level])}
					>
						{line.text}
					</Text>
				</Line>
			))}
		</Box>
	);
}

const Memo = React.memo(JobPane);
export default Memo;

/** Every line it has (title, time, work at risk, steps); none outside a job. The title alone at the least. */
export function jobPaneNeed(state: SchedulerState | null, risk: DeadlineRisk | null, compact: boolean): Need {
	const count = jobLines(state, risk, compact).length;
	return {min: Math.min(1, count), want: count};
}

export const jobPane: PaneDefinition = {
	id: 'job',
	wideFrom: JOB_PANE_WIDE,
	firstRows: 2,
	need: ({snapshot}, room) =>
		jobPaneNeed(snapshot.scheduler ?? null, snapshot.deadlineRisk ?? null, room.width < JOB_PANE_WIDE),
	render: ({snapshot}, box) => (
		<Memo
			state={snapshot.scheduler ?? null}
			risk={snapshot.deadlineRisk ?? null}
			width={box.width}
			height={box.height}
			compact={box.compact}
		/>
	),
};

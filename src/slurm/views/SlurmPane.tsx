import React from 'react';
import {Box, Text} from 'ink';
import type {Need, PaneDefinition} from '../../ui/panes/pane.js';
import Line from '../../ui/widgets/Line.js';
import type {DeadlineRisk} from '../../core/deadline-risk.js';
import type {SlurmView} from '../types.js';
import {slurmViewOf} from '../scheduler-state.js';
import {usePaint} from '../../ui/color.js';
import {LEVEL_COLOR} from '../../format/levels.js';
import {slurmLines} from './job-lines.js';

export interface Props {
	/** The SLURM job as its controller sees it; null outside SLURM (the pane then takes no rows). */
	readonly view: SlurmView | null;
	/** The time left against the save cadence (Snapshot.deadlineRisk). */
	readonly risk: DeadlineRisk | null;
	readonly width: number;
	readonly height: number;
	readonly compact?: boolean;
}

/** The job as SLURM sees it: state, time left, the warning signal, the work at risk at the limit, the steps. */
function SlurmPane({view, risk, width, height, compact = false}: Props) {
	const paint = usePaint();
	const lines = slurmLines(view, risk, compact).slice(0, Math.max(0, height));
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

const Memo = React.memo(SlurmPane);
export default Memo;

/** Every line it has (title, time, work at risk, steps); none outside SLURM. The title alone at the least. */
export function slurmNeed(view: SlurmView | null, risk: DeadlineRisk | null, compact: boolean): Need {
	const count = slurmLines(view, risk, compact).length;
	return {min: Math.min(1, count), want: count};
}

export const slurmPane: PaneDefinition = {
	id: 'slurm',
	wideFrom: 100,
	firstRows: 2,
	need: ({snapshot}, room) =>
		slurmNeed(slurmViewOf(snapshot.scheduler), snapshot.deadlineRisk ?? null, room.width < slurmPane.wideFrom),
	render: ({snapshot}, box) => (
		<Memo
			view={slurmViewOf(snapshot.scheduler)}
			risk={snapshot.deadlineRisk ?? null}
			width={box.width}
			height={box.height}
			compact={box.compact}
		/>
	),
};

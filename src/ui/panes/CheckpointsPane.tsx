import React from 'react';
import {Box, Text} from 'ink';
import type {Need, PaneDefinition} from './pane.js';
import Line from '../widgets/Line.js';
import type {CheckpointIndex} from '../../core/types.js';
import {usePaint} from '../color.js';
import {LEVEL_COLOR, LEVEL_TAG} from '../../format/levels.js';
import {groupRuleText, headerParts, NO_RUN_DIR, olderText, rowCells, stepWidth} from './checkpoint-rows.js';
import {headingCount, paneItems} from './checkpoint-sections.js';
import {noCheckpointsText} from '../../format/checkpoints.js';
import {printable} from '../../format/printable.js';
import type {SaveStatus} from './save-status.js';
import type {Readiness} from '../../core/readiness-types.js';
import {leadClause} from '../../format/readiness.js';

export type {SaveStatus};

export interface Props {
	/** The run dir's checkpoints, retention and disk; null without a run dir. */
	readonly index: CheckpointIndex | null;
	/** Epoch ms: checkpoint ages are counted to it. */
	readonly now: number;
	/** The last save request's progress, or null. */
	readonly status?: SaveStatus | null;
	/** A drill's job's readiness, judged with its fresh save: said after the status. */
	readonly drillVerdict?: Readiness | null;
	/** Saves seen landing since traintop started (snapshot.savesSeen): counted here, not listed as alerts. */
	readonly savesSeen?: number;
	readonly width: number;
	/** Lines available; the pane never draws more. */
	readonly height: number;
	/** Narrow form: no names, no totals. */
	readonly compact?: boolean;
}

/**
 * A header (last save, OVERDUE, disk free and saves until full), the save request's status, then
 * the timeline: each framework's group under a heading with its retention rule, newest first: step, age, size, kind,
 * PARTIAL and PRUNE NEXT marks, and "+N older" when the rows run out.
 */
function CheckpointsPane({
	index,
	now,
	status = null,
	drillVerdict = null,
	savesSeen = 0,
	width,
	height,
	compact = false,
}: Props) {
	const paint = usePaint();
	if (height <= 0) return null;
	const title = <Text bold>CHECKPOINTS</Text>;
	const showStatus = status !== null && height >= 2;
	const statusLine = showStatus ? (
		<Line width={width}>
			<Text color={paint(LEVEL_COLOR[status.level])} bold={status.level !== 'ok'}>
				{status.level === 'ok' ? '» ' : `${LEVEL_TAG[status.level]} `}
				{status.drillJob ? `drill ${drillVerdict?.verdict ?? ''}: `.replace(' :', ':') : ''}
				{status.text}
				{drillVerdict ? `; ${leadClause(drillVerdict)}` : ''}
			</Text>
		</Line>
	) : null;
	if (index === null) {
		// A save sent without a run dir still says what became of it, above the reason there is no list.
		const messageLine = height >= (showStatus ? 3 : 2);
		return (
			<Box flexDirection="column" width={width}>
				<Line width={width}>
					{title}
					{messageLine ? '' : ` ${NO_RUN_DIR}`}
				</Line>
				{statusLine}
				{messageLine ? <Line width={width}>{NO_RUN_DIR}</Line> : null}
			</Box>
		);
	}

	const room = height - 1 - (showStatus ? 1 : 0);
	const items = paneItems(index, room, compact);
	const digits = stepWidth(items.flatMap(item => (item.kind === 'row' ? [item.checkpoint] : [])));
	return (
		<Box flexDirection="column" width={width}>
			<Line width={width}>
				{title}
				{headerParts(index, compact, savesSeen).map((part, i) => (
					<React.Fragment key={i}>
						{i === 0 ? ' ' : ' · '}
						<Text bold={part.alarm} color={part.alarm ? paint('red') : undefined}>
							{part.text}
						</Text>
					</React.Fragment>
				))}
			</Line>
			{statusLine}
			{room > 0 && index.checkpoints.length === 0 ? (
				<Line width={width}>{index.scanning ? `run dir ${printable(index.runDir)}` : noCheckpointsText(index)}</Line>
			) : null}
			{items.map(item => {
				if (item.kind === 'group')
					return (
						<Line key={`group ${item.group.key}`} width={width}>
							<Text dimColor>{groupRuleText(item.group, compact)}</Text>
						</Line>
					);
				if (item.kind === 'older')
					return (
						<Line key="older" width={width}>
							{olderText(item.count)}
						</Line>
					);
				const c = item.checkpoint;
				const cells = rowCells(c, now, digits, compact);
				return (
					<Line key={c.path} width={width}>
						{cells.main}
						{cells.partial ? '  ' : ''}
						<Text color={paint('yellow')} bold>
							{cells.partial}
						</Text>
						{cells.retention ? '  ' : ''}
						<Text
							color={c.retention === 'prune-next' ? paint('red') : undefined}
							dimColor={c.retention === 'protected'}
						>
							{cells.retention}
						</Text>
						{cells.name === '' ? '' : `  ${cells.name}`}
					</Line>
				);
			})}
		</Box>
	);
}

const Memo = React.memo(CheckpointsPane);
export default Memo;

/**
 * The header, the save request's status when there is one, then a row per checkpoint (or "no
 * checkpoints yet") — or the header and the no-run-dir message.
 */
export function checkpointsNeed(index: CheckpointIndex | null, withStatus: boolean, compact = true): Need {
	const status = withStatus ? 1 : 0;
	if (index === null) return {min: 2 + status, want: 2 + status};
	const rows = headingCount(index, compact) + Math.max(1, index.checkpoints.length);
	return {min: 2 + status, want: 1 + status + rows};
}

export const checkpointsPane: PaneDefinition = {
	id: 'checkpoints',
	wideFrom: 90,
	firstRows: 3,
	need: (data, room) =>
		checkpointsNeed(data.snapshot.checkpoints, data.saveStatus !== null, room.width < checkpointsPane.wideFrom),
	render: ({snapshot, saveStatus}, box) => (
		<Memo
			index={snapshot.checkpoints}
			now={snapshot.time}
			status={saveStatus}
			drillVerdict={
				saveStatus?.drillJob ? (snapshot.readiness?.find(r => r.job === saveStatus.drillJob) ?? null) : null
			}
			savesSeen={snapshot.savesSeen}
			width={box.width}
			height={box.height}
			compact={box.compact}
		/>
	),
};

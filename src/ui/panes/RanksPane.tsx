import React from 'react';
import {Box, Text} from 'ink';
import type {Need, PaneDefinition} from './pane.js';
import Line from '../widgets/Line.js';
import type {Job, RankSet, Snapshot} from '../../core/types.js';
import type {SchedulerState} from '../../scheduler/types.js';
import {columns} from '../../format/columns.js';
import {unprovenText} from '../../format/membership.js';
import {sortLabel} from '../rank-sort.js';
import {targetOf} from '../targets.js';
import RankRow from './RankRow.js';
import ReadinessLine from './ReadinessLine.js';
import type {Readiness} from '../../core/readiness-types.js';
import type {JobProgress} from '../../core/progress-types.js';
import ProgressLine from './ProgressLine.js';
import {ncclRasLines} from '../../format/nccl-ras.js';
import {type PaneMemory, paneMemory, rowMemory} from './rank-memory.js';
import {
	cursorLine,
	endedText,
	grouped,
	groupedTitleParts,
	jobHeaderText,
	jobLines,
	lineCount,
	lineWindow,
	noRanksText,
	ranksOf,
	singleTitleParts,
} from './job-rows.js';
import {DEFAULT_SEARCH_HINT, headerText, moreText, signalCells, signalsText} from './rank-rows.js';

export interface Props {
	/** The jobs and their ranks at the last scan; null before the first or without rank sampling. */
	readonly ranks: RankSet | null;
	/** Why the last scan failed (snapshot.ranksError). */
	readonly error: string | null;
	/**
	 * Index of the selected rank among all ranks, job by job; kept visible when the list scrolls. null: no rank is
	 * selected, nothing is a target (the many-node screen's ranks, whose cursor is on its nodes).
	 */
	readonly cursor: number | null;
	/** PIDs marked as targets (`●`), all of one job; none marked means every rank of the cursor's job. */
	readonly marked: ReadonlySet<number>;
	readonly width: number;
	/** Lines available; the pane never draws more. */
	readonly height: number;
	/** Epoch ms (the snapshot's): an ended job's time is said against it. */
	readonly now: number;
	/** Narrow form: TERM INT USR1 USR2 only, no command column. */
	readonly compact?: boolean;
	/** The save and emergency signals: first in a compact row, the last dropped when it is narrow. */
	readonly signalsFirst?: readonly string[];
	/** How the rows are ordered, when not by rank (`sorted by RSS ↓`): after the count, where a cut title keeps it. */
	readonly sortText?: string | null;
	/** Says where ranks are looked for, after "no ranks found". */
	readonly searchHint?: string;
	/** The job as its scheduler gave it: how a step ended where /proc could not read it. */
	readonly scheduler?: SchedulerState | null;
	/** Columns of a HOST column before the rank (ranks of several nodes: the many-node screen); 0: none. */
	readonly hostWidth?: number;
	/** Each job's preemption readiness: a line under its header. */
	readonly readiness?: readonly Readiness[];
	/** Each job's progress: its verdict in its header, and a line under it when stalled or hung. */
	readonly progress?: readonly JobProgress[];
	/** NCCL's RAS service's first line when it answers (format/nccl-ras.ts); null: not answering, not asked. */
	readonly nccl?: string | null;
	/** Each job's own memory (a line under its header, each rank's row: rank + workers) and the host's; null: none. */
	readonly memory?: PaneMemory | null;
}

/** Ended jobs newest first, the scan's error, or where ranks were looked for: what the pane says without a job. */
function noJobLines(
	ranks: RankSet | null,
	error: string | null,
	searchHint: string,
	now: number,
	scheduler: SchedulerState | null,
): string[] {
	if (error && (ranks === null || ranks.ranks.length === 0)) return [`rank scan failed: ${error}`];
	const ended = [...(ranks?.ended ?? [])].reverse();
	if (ended.length > 0) return ended.map(job => endedText(job, now, scheduler));
	return [`no ranks found (${ranks?.search ?? searchHint})`];
}

/**
 * The jobs and their ranks: with one job, its title then a row per rank with its signal dispositions
 * (`TERM✓ INT✓ USR1✓ USR2✗`); with several, a bold header line per job above its rows. With more lines
 * than rows, a window around the cursor that keeps its job's header, and a "+N more" line; without a
 * job, the jobs that ended, the scan's error or where ranks were looked for.
 */
const NO_SIGNALS: readonly string[] = [];
const NO_READINESS: readonly Readiness[] = [];
const NO_PROGRESS: readonly JobProgress[] = [];

/** NCCL RAS's first line while it answers: a node without it (most) spends no row on it. */
function ncclLine(snapshot: Snapshot): string | null {
	const state = snapshot.ncclRas;
	return state?.status === 'ok' ? (ncclRasLines(state, snapshot.time)[0] ?? null) : null;
}

function RanksPane({
	ranks,
	error,
	cursor,
	marked,
	width,
	height,
	now,
	compact = false,
	signalsFirst = NO_SIGNALS,
	sortText = null,
	searchHint = DEFAULT_SEARCH_HINT,
	hostWidth = 0,
	scheduler = null,
	readiness = NO_READINESS,
	progress = NO_PROGRESS,
	nccl = null,
	memory = null,
}: Props) {
	if (height <= 0) return null;
	const jobs = ranks?.jobs ?? [];
	if (ranks === null || jobs.length === 0) {
		const reasons = noJobLines(ranks, error, searchHint, now, scheduler);
		return (
			<Box flexDirection="column" width={width}>
				<Line width={width}>
					<Text bold>RANKS</Text>
					{height === 1 ? ` ${reasons[0]}` : ''}
				</Line>
				{reasons.slice(0, Math.max(0, height - 1)).map((reason, i) => (
					<Line key={i} width={width}>
						{reason}
					</Line>
				))}
			</Box>
		);
	}

	const lines = jobLines(jobs, readiness, progress, nccl, memory);
	const all = ranksOf(jobs);
	const progressOf = (job: Job) => progress.find(p => p.job === job.id);
	const title = grouped(jobs)
		? groupedTitleParts(ranks, cursor === null ? null : targetOf(all, cursor, marked), error)
		: singleTitleParts(jobs[0]!, cursor === null ? null : marked, error, progressOf(jobs[0]!), now);
	let room = height - 1;
	const showHeader = room >= 2 && all.length > 0;
	if (showHeader) room--;
	// With too many lines, one row goes to the "+N more" line (unless only one row is left at all).
	const scrolled = lines.length > room;
	const visible = scrolled && room >= 2 ? room - 1 : room;
	// Without a cursor the list shows from its top, no row selected.
	const at = cursor === null ? -1 : cursorLine(lines, cursor);
	const {shown, ranksAbove, ranksBelow} = lineWindow(lines, Math.max(0, at), visible);
	const shownRanks = shown.flatMap(i => {
		const line = lines[i]!;
		return line.kind === 'rank' ? [line.rank] : [];
	});
	const signalsWidth = Math.max(0, ...shownRanks.map(rank => columns(signalsText(signalCells(rank, compact)))));
	const rows = rowMemory(compact, shownRanks, memory);
	return (
		<Box flexDirection="column" width={width}>
			<Line width={width}>
				<Text bold>RANKS</Text> {(sortText ? [title[0]!, sortText, ...title.slice(1)] : title).join(' · ')}
			</Line>
			{showHeader ? (
				<Line width={width} dim>
					{headerText(compact, signalsWidth, hostWidth, rows.pss)}
				</Line>
			) : null}
			{shown.map(i => {
				const line = lines[i]!;
				if (line.kind === 'job') {
					return (
						<Line key={`job ${line.job.id}`} width={width}>
							<Text bold>{jobHeaderText(line.job, marked, progressOf(line.job), now)}</Text>
						</Line>
					);
				}
				if (line.kind === 'readiness') {
					return (
						<Line key={`ready ${line.job.id}`} width={width}>
							<ReadinessLine readiness={line.readiness} now={now} />
						</Line>
					);
				}
				if (line.kind === 'progress') {
					return (
						<Line key={`progress ${line.job.id}`} width={width}>
							<ProgressLine progress={line.progress} now={now} />
						</Line>
					);
				}
				if (line.kind === 'memory')
					return (
						<Line key={`memory ${line.job.id}`} width={width}>
							{line.text}
						</Line>
					);
				if (line.kind === 'nccl') {
					return (
						<Line key="nccl" width={width} dim>
							{`   ${line.text}`}
						</Line>
					);
				}
				if (line.kind === 'unproven') {
					return (
						<Line key={`unproven ${line.member.pid}`} width={width} dim>
							{`   ${unprovenText(line.member, line.job)}`}
						</Line>
					);
				}
				if (line.kind === 'no-ranks') {
					return (
						<Line key={`none ${line.job.id}`} width={width} dim>
							{`   ${noRanksText(line.job)}`}
						</Line>
					);
				}
				return (
					<RankRow
						// The host too: ranks of two nodes may share a pid.
						key={`${line.rank.host} ${line.rank.pid}`}
						rank={line.rank}
						selected={i === at}
						marked={marked.has(line.rank.pid)}
						compact={compact}
						signalsFirst={signalsFirst}
						signalsWidth={signalsWidth}
						width={width}
						hostWidth={hostWidth}
						memory={rows.of.get(line.rank.pid) ?? null}
						pss={rows.pss}
					/>
				);
			})}
			{scrolled && room >= 2 && ranksAbove + ranksBelow > 0 ? (
				<Line width={width}>{moreText(ranksAbove, ranksBelow)}</Line>
			) : null}
		</Box>
	);
}

const Memo = React.memo(RanksPane);
export default Memo;

/** Ended jobs the pane asks rows for when no job runs: the newest say what happened; older ones are history. */
const ENDED_SHOWN = 3;

/**
 * Title, column header, then a line per rank (and per job header with several jobs); without a job, the
 * title and a line per ended job (a few at most) or the reason there is none.
 */
export function ranksNeed(
	ranks: RankSet | null,
	readiness: readonly Readiness[] = NO_READINESS,
	progress: readonly JobProgress[] = NO_PROGRESS,
	nccl: string | null = null,
	memory: PaneMemory | null = null,
): Need {
	const jobs = ranks?.jobs ?? [];
	if (ranks === null || jobs.length === 0) {
		const ended = Math.min(ENDED_SHOWN, ranks?.ended.length ?? 0);
		return {min: 2, want: 1 + Math.max(1, ended)};
	}
	// The title, the column header (drawn only over rank rows), then the jobs' lines.
	const header = jobs.some(job => job.ranks.length > 0) ? 1 : 0;
	return {min: 2 + header, want: 1 + header + lineCount(jobs, readiness, progress, nccl, memory)};
}

export const ranksPane: PaneDefinition = {
	id: 'ranks',
	wideFrom: 110,
	firstRows: 8,
	need: ({snapshot: s}) => ranksNeed(s.ranks, s.readiness, s.progress, ncclLine(s), paneMemory(s)),
	render: ({snapshot, cursor, marked, actionSignals, sort}, box) => (
		<Memo
			ranks={snapshot.ranks}
			error={snapshot.ranksError}
			cursor={cursor}
			marked={marked}
			width={box.width}
			height={box.height}
			now={snapshot.time}
			compact={box.compact}
			signalsFirst={actionSignals}
			sortText={sortLabel(sort ?? 'rank')}
			scheduler={snapshot.scheduler ?? null}
			readiness={snapshot.readiness ?? NO_READINESS}
			progress={snapshot.progress ?? NO_PROGRESS}
			nccl={ncclLine(snapshot)}
			memory={paneMemory(snapshot)}
		/>
	),
};

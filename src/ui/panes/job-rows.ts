import type {EndedJob, Job, RankProcess, RankSet, UnprovenMember} from '../../core/types.js';
import type {Readiness} from '../../core/readiness-types.js';
import type {JobProgress} from '../../core/progress-types.js';
import {jobMemoryText} from '../../format/job-memory.js';
import type {PaneMemory} from './rank-memory.js';
import {progressTag} from '../../format/progress.js';
import {columns, truncate} from '../../format/columns.js';
import {compactCommand} from '../../format/command-line.js';
import {jobExitWords} from '../../format/events.js';
import {schedulerEntry} from '../../scheduler/registry.js';
import type {SchedulerState} from '../../scheduler/types.js';
import {missingLocalText, rankCountText, taskText} from '../../format/jobs.js';
import {printable} from '../../format/printable.js';
import {localTimeShort} from '../../format/time.js';
import {scrollWindow} from '../scroll.js';
import type {Target} from '../targets.js';

// Pure layout and text for the ranks pane's jobs: jobs flattened into lines (a header per job, then its
// ranks), the cursor's rank found among them, the window of lines drawn, and each job's header in words.

/** One line of the pane's list. */
export type PaneLine =
	| {readonly kind: 'job'; readonly job: Job}
	/** `index`: the rank's place among all ranks, job by job (what the cursor counts). */
	| {readonly kind: 'rank'; readonly rank: RankProcess; readonly index: number}
	/** A job with no rank left to show (its launcher restarts them, or they are gone). */
	| {readonly kind: 'no-ranks'; readonly job: Job}
	/** A process that claims the job without proof: shown apart under its ranks, never a rank the cursor or a mark reaches. */
	| {readonly kind: 'unproven'; readonly job: Job; readonly member: UnprovenMember}
	/** The job's preemption readiness, under its header (or the pane's title with one job). */
	| {readonly kind: 'readiness'; readonly job: Job; readonly readiness: Readiness}
	/** The job's progress when it is stalled or hung: who stands out, who waits. */
	| {readonly kind: 'progress'; readonly job: Job; readonly progress: JobProgress}
	/** The job's own memory: its ranks and workers by PSS and RSS, its share of the RAM threshold's basis, its GPU memory. */
	| {readonly kind: 'memory'; readonly job: Job; readonly text: string}
	/** What NCCL's RAS service says of this node's communicators (its first line), under the first job's progress. */
	| {readonly kind: 'nccl'; readonly text: string};

/** A progress verdict worth a line of its own: the job stopped moving. */
const stuck = (p: JobProgress | undefined): p is JobProgress => p?.verdict === 'stalled' || p?.verdict === 'hung';

/** With one job the pane's title says what its header would: a header line per job only with several. */
export function grouped(jobs: readonly Job[]): boolean {
	return jobs.length > 1;
}

/**
 * The list's lines: per job, its header (when grouped), its progress when stuck, its readiness, its memory, then its
 * ranks.
 */
export function jobLines(
	jobs: readonly Job[],
	readiness: readonly Readiness[] = [],
	progress: readonly JobProgress[] = [],
	nccl: string | null = null,
	memory: PaneMemory | null = null,
): PaneLine[] {
	const lines: PaneLine[] = [];
	const headers = grouped(jobs);
	let index = 0;
	for (const job of jobs) {
		if (headers) lines.push({kind: 'job', job});
		const going = progress.find(p => p.job === job.id);
		if (stuck(going)) lines.push({kind: 'progress', job, progress: going});
		if (nccl !== null && job === jobs[0]) lines.push({kind: 'nccl', text: nccl});
		const ready = readiness.find(r => r.job === job.id);
		if (ready) lines.push({kind: 'readiness', job, readiness: ready});
		const own = memory?.jobs.find(m => m.job === job.id);
		if (own)
			lines.push({kind: 'memory', job, text: `   memory ${jobMemoryText(own, memory?.host ?? null, memory?.now)}`});
		if (job.ranks.length === 0) lines.push({kind: 'no-ranks', job});
		for (const rank of job.ranks) lines.push({kind: 'rank', rank, index: index++});
		for (const member of job.unproven ?? []) lines.push({kind: 'unproven', job, member});
	}
	return lines;
}

/** How many lines jobLines makes, without making them (the layout asks for 2048 ranks, often). */
export function lineCount(
	jobs: readonly Job[],
	readiness: readonly Readiness[] = [],
	progress: readonly JobProgress[] = [],
	nccl: string | null = null,
	memory: PaneMemory | null = null,
): number {
	const headers = grouped(jobs) ? jobs.length : 0;
	const ready = jobs.filter(job => readiness.some(r => r.job === job.id)).length;
	const own = jobs.filter(job => memory?.jobs.some(m => m.job === job.id)).length;
	const going = jobs.filter(job => stuck(progress.find(p => p.job === job.id))).length;
	return (
		headers +
		ready +
		own +
		going +
		(nccl !== null && jobs.length > 0 ? 1 : 0) +
		jobs.reduce((sum, job) => sum + Math.max(1, job.ranks.length) + (job.unproven?.length ?? 0), 0)
	);
}

/** Every rank, job by job: the order of the rank rows and what the cursor indexes. */
export function ranksOf(jobs: readonly Job[]): RankProcess[] {
	return jobs.flatMap(job => job.ranks);
}

/** The line of the cursor's rank (the cursor clamped to the ranks), or 0 when no line is a rank. */
export function cursorLine(lines: readonly PaneLine[], cursor: number): number {
	const ranks = lines.filter(line => line.kind === 'rank').length;
	if (ranks === 0) return 0;
	const at = Math.max(0, Math.min(Math.floor(cursor), ranks - 1));
	return lines.findIndex(line => line.kind === 'rank' && line.index === at);
}

/** The header line of the job that `line` belongs to, or null (not grouped). */
export function headerOf(lines: readonly PaneLine[], line: number): number | null {
	for (let i = Math.min(line, lines.length - 1); i >= 0; i--) if (lines[i]!.kind === 'job') return i;
	return null;
}

export interface LineWindow {
	/** Indices of the lines drawn, top to bottom. */
	readonly shown: readonly number[];
	/** Rank lines not drawn above and below the window (the "+N more" line). */
	readonly ranksAbove: number;
	readonly ranksBelow: number;
}

const isRank = (line: PaneLine | undefined): boolean => line?.kind === 'rank';

/**
 * Which of the lines fit in `visible` rows: a window around the cursor's line, moved up to start at its
 * job's header when both fit; when they do not, the header is pinned as the first row above a window
 * that still holds the cursor, so the rows on screen always say which job they belong to.
 */
export function lineWindow(lines: readonly PaneLine[], cursorAt: number, visible: number): LineWindow {
	const size = Math.max(0, Math.min(lines.length, Math.floor(visible)));
	let {start, end} = scrollWindow(lines.length, cursorAt, size);
	let pinned: number | null = null;
	const header = headerOf(lines, cursorAt);
	if (size > 0 && header !== null && header < start) {
		if (cursorAt - header < size) {
			start = header;
			end = start + size;
		} else if (size >= 2) {
			// The cursor's line stays where the window put it; the header takes the top row.
			pinned = header;
			start += 1;
		}
	}
	const range = Array.from({length: end - start}, (_, i) => start + i);
	const shown = pinned === null ? range : [pinned, ...range];
	return {
		shown,
		ranksAbove: lines.slice(0, start).filter(isRank).length,
		ranksBelow: lines.slice(end).filter(isRank).length,
	};
}

/** What needs a look first: missing local ranks, stalled and stopped ranks. */
function urgentParts(job: Job): string[] {
	const parts: string[] = [];
	const missing = missingLocalText(job);
	if (missing) parts.push(missing);
	const stalled = job.ranks.filter(r => r.stalled && !r.stopped).length;
	if (stalled > 0) parts.push(`${stalled} STALLED`);
	const stopped = job.ranks.filter(r => r.stopped).length;
	if (stopped > 0) parts.push(`${stopped} STOPPED`);
	return parts;
}

/** `/home/ann/runs/a` as `…/runs/a` when longer than `max` columns: the end of a path tells runs apart. */
export function shortPath(path: string, max: number): string {
	if (columns(path) <= max) return path;
	const parts = path.split('/');
	let tail = parts.at(-1) ?? '';
	for (let i = parts.length - 2; i >= 0; i--) {
		const longer = `${parts[i]}/${tail}`;
		if (columns(`…/${longer}`) > max) break;
		tail = longer;
	}
	return truncate(`…/${tail}`, max);
}

/** The job's places: run dir (when it is RUN_DIR's job, else where it runs: what tells two jobs apart), scheduler job, launcher. */
function detailParts(job: Job): string[] {
	const parts: string[] = [];
	// Paths and ids from the ranks' environment and the file system: shown, never obeyed.
	if (job.runDir !== null) parts.push(`run dir ${shortPath(printable(job.runDir), 32)}`);
	else if (job.cwd !== null) parts.push(`in ${shortPath(printable(job.cwd), 32)}`);
	const task = job.task ?? job.ranks.find(r => r.task)?.task;
	if (task) parts.push(taskText(task));
	if (job.launcher) parts.push(`launcher ${job.launcher.pid} ${truncate(compactCommand(job.launcher.cmd), 40)}`);
	return parts;
}

/**
 * A job's header line when there are several: `JOB torchrun:4242 · 4 ranks (world 4) · 1 STALLED ·
 * 2 marked · run dir …/runs/a · NAME 998.0 · launcher 4242 torchrun …`; most urgent first, as the pane
 * cuts it to its width.
 */
export function jobHeaderText(job: Job, marked: ReadonlySet<number>, progress?: JobProgress, now = 0): string {
	const marks = job.ranks.filter(r => marked.has(r.pid)).length;
	return [
		`JOB ${printable(job.id)}`,
		rankCountText(job),
		...(progress ? [progressTag(progress, now)].filter(tag => tag !== null) : []),
		...urgentParts(job),
		...(marks > 0 ? [`${marks} marked`] : []),
		...detailParts(job),
	].join(' · ');
}

/**
 * After RANKS with one job, which the title then stands for: `8 (world 8) · job torchrun:4242 · target: all · …`.
 * `marked` null: nothing is a target here (the many-node screen's ranks), none is said.
 */
export function singleTitleParts(
	job: Job,
	marked: ReadonlySet<number> | null,
	error: string | null,
	progress?: JobProgress,
	now = 0,
): string[] {
	const marks = marked === null ? 0 : job.ranks.filter(r => marked.has(r.pid)).length;
	return [
		rankCountText(job, true),
		`job ${printable(job.id)}`,
		...(progress ? [progressTag(progress, now)].filter(tag => tag !== null) : []),
		...(marked === null ? [] : [marks === 0 ? 'target: all' : `target: ${marks} marked`]),
		...urgentParts(job),
		...(error ? [`last scan failed: ${printable(error)}`] : []),
		...detailParts(job),
	];
}

/** After RANKS with several jobs: `7 in 2 jobs · target: job torchrun:4242 (all 4 ranks) · …`. */
export function groupedTitleParts(set: RankSet, target: Target | null, error: string | null): string[] {
	const parts = [`${set.ranks.length} in ${set.jobs.length} jobs`];
	if (target) {
		const which = target.marked ? `${target.pids.length} marked` : `all ${target.of} rank${target.of === 1 ? '' : 's'}`;
		parts.push(`target: job ${printable(target.job)} (${which})`);
	}
	if (error) parts.push(`last scan failed: ${printable(error)}`);
	return parts;
}

/**
 * `job torchrun:4242 ended 12:03:11, exit 99 — saved for requeue` (the date too when not today). A scheduler's step
 * whose exit /proc could not read (its step daemon reaps its tasks) gets the scheduler's words for its job's end,
 * from `schedulerEnd` (job id → words; null: it has none): `…; NAME job 42 TIMEOUT…`.
 */
export function endedText(job: EndedJob, now: number, scheduler: SchedulerState | null = null): string {
	const when = `job ${printable(job.id)} ended ${localTimeShort(job.endedAt, now)}`;
	const view = scheduler === null ? undefined : schedulerEntry(scheduler.kind)?.view;
	const told = job.exit === null && scheduler !== null ? (view?.endedText?.(job.id, scheduler) ?? null) : null;
	if (told !== null) return `${when}; ${told}`;
	return `${when}, ${jobExitWords(job.exit)}`;
}

/** The line under a job with no ranks: a live launcher is restarting them. */
export function noRanksText(job: Job): string {
	return job.launcher ? 'no ranks (launcher alive)' : 'no ranks';
}

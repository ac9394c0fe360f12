import {table} from './table.js';
import type {Job, RankProcess, RankSet} from '../core/types.js';
import type {SchedulerTaskJson} from '../scheduler/kind.js';
import {schedulerKinds} from '../scheduler/kinds.js';
import type {SchedulerTask} from '../scheduler/task.js';
import type {SchedulerState} from '../scheduler/types.js';
import {jobLine} from '../format/jobs.js';
import {WATCHED_SIGNALS} from '../ranks/signals.js';
import {truncate} from '../format/columns.js';
import {compactCommand} from '../format/command-line.js';
import {SIGNAL_LEGEND, signalMark, signalName} from '../format/signals.js';
import {formatBytesShort} from '../format/units.js';
import {printable} from '../format/printable.js';
import {unprovenText} from '../format/membership.js';
import type {Readiness} from '../core/readiness-types.js';
import {readinessText} from '../format/readiness.js';
import {readinessJson} from '../format/readiness-json.js';
import type {JobProgress} from '../core/progress-types.js';
import {progressText} from '../format/progress.js';
import {progressJson} from '../format/progress-json.js';
import {jobMemoryText} from '../format/job-memory.js';
import {jobMemoryJson} from '../format/job-memory-json.js';
import type {OneShotMemory} from './ranks-memory.js';
import type {RankMemory} from '../core/memory-types.js';

// Pure text and JSON for `traintop ranks`. The TUI's ranks pane shows the same signal marks (format/signals.ts).

/** A command line on one line, every argument kept: any run of blanks or newlines becomes one space. */
const wholeCommand = (cmd: string): string => printable(cmd.replace(/\s+/g, ' ').trim());

/** `memory`: the rank with its DataLoader workers, whose RSS the column shows as the TUI's does; absent: its own. */
function rankRow(r: RankProcess, wide: boolean, memory?: RankMemory): string[] {
	return [
		r.rank === null ? '?' : String(r.rank),
		r.localRank === null ? '-' : String(r.localRank),
		String(r.pid),
		r.stalled ? `${r.state}!` : r.state,
		r.cpuPercent === null ? '-' : r.cpuPercent.toFixed(0),
		formatBytesShort(memory ? memory.rssBytes : r.rssBytes),
		formatBytesShort(r.gpuMemoryBytes),
		String(r.workers.length),
		...WATCHED_SIGNALS.map(signal => (r.signals[signal] ? signalMark(r.signals[signal]) : '?')),
		wide ? wholeCommand(r.cmd) : compactCommand(r.cmd),
	];
}

/** Stalled and stopped ranks of a job, said under its rows. */
function troubleLines(job: Job): string[] {
	const lines: string[] = [];
	const who = (list: readonly RankProcess[]) => list.map(r => `rank ${r.rank ?? '?'} (pid ${r.pid})`).join(', ');
	const stopped = job.ranks.filter(r => r.stopped);
	if (stopped.length > 0) lines.push(`  stopped (SIGSTOP or a debugger): ${who(stopped)}`);
	const stalled = job.ranks.filter(r => r.stalled);
	if (stalled.length > 0) lines.push(`  stalled (no CPU time for the stall window): ${who(stalled)}`);
	return lines;
}

/**
 * The readable table: per job a header line, its ranks with their signal marks, then what is wrong with them. Rows
 * are cut to `width` with `…`; `wide` (--wide, or stdout not a terminal: a file, grep, a pager) keeps every row whole
 * and CMD the whole command line, interpreter path and all, since a script or a person scrolling needs all of it.
 */
interface RanksTextOptions {
	readonly width?: number;
	readonly wide?: boolean;
	/** Each job's preemption readiness, a line under its ranks. */
	readonly readiness?: readonly Readiness[];
	/** Each job's progress over the half second read, a line under its ranks. */
	readonly progress?: readonly JobProgress[];
	/** Each job's own memory and the host's, a line under its ranks. */
	readonly memory?: OneShotMemory;
	readonly now?: number;
}

export function formatRanks(
	set: RankSet,
	{width = 120, wide = false, readiness = [], progress = [], memory, now = Date.now()}: RanksTextOptions = {},
): string {
	if (set.ranks.length === 0) return 'no ranks found';
	const cut = (line: string) => (wide ? line : truncate(line, width));
	const header = ['RANK', 'LOCAL', 'PID', 'ST', 'CPU%', 'RSS', 'GPU', 'WRK', ...WATCHED_SIGNALS.map(signalName), 'CMD'];
	const own = new Map(memory?.jobs.flatMap(job => job.ranks.map(rank => [rank.pid, rank] as const)));
	const lines = table([header, ...set.ranks.map(r => rankRow(r, wide, own.get(r.pid)))]).map(cut);
	const rowOf = new Map(set.ranks.map((r, i) => [r.pid, lines[i + 1]!]));
	const out = [lines[0]!];
	for (const job of set.jobs) {
		out.push(cut(`job ${wide ? jobLine(job, Number.POSITIVE_INFINITY, wholeCommand) : jobLine(job, width)}`));
		for (const rank of job.ranks) out.push(rowOf.get(rank.pid)!);
		if (job.ranks.length === 0) out.push('  no ranks (the launcher is still there: restarting?)');
		out.push(...troubleLines(job));
		const ready = readiness.find(r => r.job === job.id);
		if (ready) out.push(cut(`  readiness: ${readinessText(ready, now)}`));
		const going = progress.find(p => p.job === job.id);
		if (going) out.push(cut(`  progress: ${progressText(going, now)}`));
		const own = memory?.jobs.find(m => m.job === job.id);
		if (own) out.push(cut(`  memory: ${jobMemoryText(own, memory?.host ?? null)}`));
		for (const member of job.unproven ?? [])
			out.push(cut(`  ${unprovenText(member, job)}: ${wholeCommand(member.cmd)}`));
	}
	const host = set.ranks[0]!.host;
	const claims = set.jobs.reduce((sum, job) => sum + (job.unproven?.length ?? 0), 0);
	const apart =
		claims === 0 ? '' : `; ${claims} process${claims === 1 ? '' : 'es'} claiming a job without proof, never signalled`;
	const summary = `${set.jobs.length} job${set.jobs.length === 1 ? '' : 's'}, ${set.ranks.length} rank${set.ranks.length === 1 ? '' : 's'} on ${host}${apart}`;
	return [...out, '', summary, SIGNAL_LEGEND].join('\n');
}

/**
 * The stable `ranks --json` shape: scripts rely on it, so a change is a documented one. `controller`: the scheduler's
 * job as its controller gave it (given by its flag), whose time limit and time left go in the job's task
 * (under the scheduler's own key); null when not asked for or not read.
 */
export function ranksJson(
	set: RankSet,
	controller: SchedulerState | null = null,
	readiness: readonly Readiness[] = [],
	now = Date.now(),
	progress: readonly JobProgress[] = [],
	memory: OneShotMemory = {jobs: [], host: null},
) {
	const readinessOf = (id: string) => {
		const found = readiness.find(r => r.job === id);
		return found ? readinessJson(found, now) : null;
	};
	const progressOf = (id: string) => {
		const found = progress.find(p => p.job === id);
		return found ? progressJson(found, now) : null;
	};
	const memoryOf = (id: string) => {
		const found = memory.jobs.find(m => m.job === id);
		return found ? jobMemoryJson(found, memory.host) : null;
	};
	return {
		jobs: set.jobs.map(job => ({
			id: job.id,
			identity: job.identity === 'scheduler' ? (job.task?.scheduler ?? job.identity) : job.identity,
			launcher: job.launcher && {pid: job.launcher.pid, cmd: job.launcher.cmd},
			world_size: job.worldSize,
			local_world_size: job.localWorldSize,
			all_local_ranks_present: job.allLocalRanksPresent,
			ranks: job.ranks.map(r => r.pid),
			run_dir: job.runDir,
			...taskJson(job.task, (json, task) => json.job(task, controller)),
			proven_by: job.provenBy === 'scheduler-step' && job.task ? `${job.task.scheduler}-step` : (job.provenBy ?? null),
			unproven: (job.unproven ?? []).map(member => ({
				pid: member.pid,
				ppid: member.ppid,
				rank: member.rank,
				cmd: member.cmd,
				membership: member.membership,
			})),
			readiness: readinessOf(job.id),
			progress: progressOf(job.id),
			memory: memoryOf(job.id),
		})),
		ranks: set.ranks.map(r => ({
			rank: r.rank,
			local_rank: r.localRank,
			world_size: r.worldSize,
			pid: r.pid,
			ppid: r.ppid,
			start_time: new Date(r.startedAt).toISOString(),
			start_ticks: r.startTime,
			host: r.host,
			cmd: r.cmd,
			state: r.state,
			stalled: r.stalled,
			cpu_percent: r.cpuPercent === null ? null : Math.round(r.cpuPercent * 10) / 10,
			rss_bytes: r.rssBytes,
			gpu_memory_bytes: r.gpuMemoryBytes,
			signals: Object.fromEntries(
				Object.entries(r.signals).map(([name, s]) => [
					name,
					{
						disposition: s.disposition,
						blocked: s.blocked,
						pending: s.pending,
						terminates_by_default: s.terminatesByDefault,
					},
				]),
			),
			workers: r.workers,
			job: r.job,
			stopped: r.stopped,
			...taskJson(r.task, (json, task) => json.rank(task)),
		})),
		launcher: set.launcher && {pid: set.launcher.pid, cmd: set.launcher.cmd},
	};
}

/**
 * Each scheduler's own key: the task's object under its scheduler's, null under the others' — every key is
 * written whether or not a rank has a task, as scripts expect.
 */
function taskJson(
	task: SchedulerTask | null,
	write: (json: SchedulerTaskJson, task: SchedulerTask) => Record<string, unknown>,
) {
	const out: Record<string, Record<string, unknown> | null> = {};
	for (const kind of schedulerKinds()) {
		if (kind.taskJson) out[kind.taskJson.key] = task?.scheduler === kind.kind ? write(kind.taskJson, task) : null;
	}
	return out;
}

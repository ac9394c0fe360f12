import type {RankProcess, SignalState} from '../core/job-types.js';
import type {ProcReader} from '../system/procfs.js';
import {taskSchedulers} from '../scheduler/kinds.js';

// What the TUI's rank detail shows of one rank: what the last scan knew (state, CPU, memory, signals)
// and what only /proc knows and no scan keeps (the whole argv, the working directory, the launch
// variables, each worker's RSS). Read once, when the detail is asked for: a few small /proc files,
// never per tick. Plain data, no words: ui/rank-detail-lines.ts writes them.

/** The torch launchers' variables, shown first. */
const LAUNCH_VARIABLES = [
	'RANK',
	'LOCAL_RANK',
	'WORLD_SIZE',
	'LOCAL_WORLD_SIZE',
	'MASTER_ADDR',
	'MASTER_PORT',
	'TORCHELASTIC_RUN_ID',
];

/**
 * The variables that say where a rank sits in its job, in the order shown: the torch launcher's, then each
 * scheduler's (its task's ids), then the GPUs it may use. Only these: an environment also holds tokens and
 * passwords, which have no place on a screen someone may be sharing.
 */
export function rankVariables(): readonly string[] {
	return [...LAUNCH_VARIABLES, ...taskSchedulers().flatMap(one => one.detailVars), 'CUDA_VISIBLE_DEVICES'];
}

export interface WorkerDetail {
	readonly pid: number;
	/** VmRSS; null when it has none (a zombie) or is gone. */
	readonly rssBytes: number | null;
	/** Its /proc entry could not be read: it exited since the scan. */
	readonly gone: boolean;
}

export interface RankDetail {
	readonly rank: number | null;
	readonly pid: number;
	/** Job.id */
	readonly job: string;
	readonly host: string;
	/** The argv as exec'd, each argument whole; the scan's space-joined cmd split on blanks when unreadable. */
	readonly argv: readonly string[];
	/** False when argv is the scan's cmd, not /proc/PID/cmdline (the read failed, or a zombie has none). */
	readonly argvExact: boolean;
	readonly cwd: string | null;
	/** The rankVariables() set in its environment, in that order; null when the environment is unreadable. */
	readonly variables: readonly {readonly name: string; readonly value: string}[] | null;
	/** The watched signals as the last scan read them. */
	readonly signals: Readonly<Record<string, SignalState>>;
	readonly workers: readonly WorkerDetail[];
	readonly state: string;
	readonly stalled: boolean;
	readonly stopped: boolean;
	readonly cpuPercent: number | null;
	readonly rssBytes: number | null;
	readonly gpuMemoryBytes: number | null;
	/** Epoch ms. */
	readonly startedAt: number;
	/** Epoch ms of the /proc read: the scan's numbers are as of then, the detail does not follow them. */
	readonly readAt: number;
	/**
	 * Why this is only what the last scan said, when /proc could not be asked at all: a rank on another node whose
	 * agent did not answer (`pid 123 on node02: its agent did not answer in 5 s; showing its last scan`).
	 */
	readonly scanOnly?: string;
}

/**
 * The detail of `rank` as its last scan saw it, without reading /proc: the scan's command line (not exact), no
 * working directory or environment, workers without their RSS. What a rank on another node shows when its agent
 * cannot be asked (`scanOnly` says why), and the base rankDetail fills in from /proc here.
 */
export function detailFromScan(rank: RankProcess, readAt: number, scanOnly?: string): RankDetail {
	return {
		...(scanOnly === undefined ? {} : {scanOnly}),
		rank: rank.rank,
		pid: rank.pid,
		job: rank.job,
		host: rank.host,
		argv: rank.cmd.split(/\s+/).filter(word => word !== ''),
		argvExact: false,
		cwd: null,
		variables: null,
		signals: rank.signals,
		workers: rank.workers.map(pid => ({pid, rssBytes: null, gone: false})),
		state: rank.state,
		stalled: rank.stalled,
		stopped: rank.stopped,
		cpuPercent: rank.cpuPercent,
		rssBytes: rank.rssBytes,
		gpuMemoryBytes: rank.gpuMemoryBytes,
		startedAt: rank.startedAt,
		readAt,
	};
}

/**
 * The detail of `rank` as /proc shows it now; null when the rank is gone — it exited, or its pid is
 * another process's now (a different start time), whose files must not be shown as the rank's.
 */
export function rankDetail(rank: RankProcess, proc: ProcReader, readAt: number): RankDetail | null {
	const stat = proc.stat(rank.pid);
	if (stat === null || stat.startTime !== rank.startTime) return null;
	const argv = proc.cmdline(rank.pid);
	const environ = proc.environ(rank.pid);
	const exact = argv !== null && argv.length > 0;
	const scanned = detailFromScan(rank, readAt);
	return {
		...scanned,
		argv: exact ? argv : scanned.argv,
		argvExact: exact,
		cwd: proc.cwd(rank.pid),
		variables:
			environ === null
				? null
				: rankVariables().flatMap(name => {
						const value = environ.get(name);
						return value === undefined ? [] : [{name, value}];
					}),
		workers: rank.workers.map(pid => {
			const status = proc.status(pid);
			return {pid, rssBytes: status?.vmRssBytes ?? null, gone: status === null};
		}),
	};
}

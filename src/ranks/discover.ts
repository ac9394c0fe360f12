import path from 'node:path';
import {
	processIdentity,
	type GpuProcessTable,
	type Job,
	type LauncherProcess,
	type RankProcess,
	type RankSet,
	type UnprovenMember,
	type UnprovenReason,
} from '../core/types.js';
import type {ProcReader} from '../system/procfs.js';
import {taskFromEnv} from '../scheduler/kinds.js';
import type {ScheduledJob} from '../scheduler/task.js';
import {searchText} from '../format/jobs.js';
import {signalStates} from './dispositions.js';
import {describeJob} from './job-facts.js';
import {LauncherReader, launcherVariables} from './launcher-process.js';
import {decodeWaitStatus, JobTracker} from './lifecycle.js';
import {jobEvidence, jobsNaming, type RunDirEvidence} from './run-dir-match.js';
import {CLOCK_TICKS_PER_SECOND, readBootTimeMs} from './proc-clock.js';
import {isStepDaemon} from './programs.js';
import {nextStall, type StallState} from './stall.js';
import {
	buildRankTree,
	carriesRank,
	type ProcessFacts,
	type RankSelector,
	type RankTree,
	type TreeRank,
} from './tree.js';

export interface RankSamplerOptions {
	readonly proc: ProcReader;
	readonly selector: RankSelector;
	readonly host: string;
	readonly self?: {readonly pid: number; readonly uid: number};
	/** A rank in R or S with no CPU time for this long is flagged stalled (default 60 s). */
	readonly stallAfterMs?: number;
	/** Full process-table scans at most this often; in between only known ranks are re-read (default 10 s). */
	readonly rescanEveryMs?: number;
	readonly now?: () => number;
	/** Epoch ms of boot, to turn start times into times; read from /proc/stat by default. */
	readonly bootTimeMs?: number;
	/** traintop's own scheduler job (inside an allocation): only that job's tasks are ranks. */
	readonly scheduledJob?: ScheduledJob | null;
	/** The RUN_DIR given, absolute: the job that names it gets it as its run dir. */
	readonly runDir?: string | null;
}

type CachedFacts = {readonly argv: readonly string[]; readonly env: ReadonlyMap<string, string> | null};

/**
 * Finds the ranks, groups them into jobs and measures them. Each sample re-reads stat and status of the
 * known ranks (CPU, memory, signal state, a zombie's exit status); the whole process table is read again
 * only every `rescanEveryMs` (or when a known rank is gone), because reading every /proc entry each tick
 * would cost more than the rest of traintop together.
 */
export class RankSampler {
	readonly #options: RankSamplerOptions;
	readonly #now: () => number;
	readonly #self: {readonly pid: number; readonly uid: number};
	readonly #bootTimeMs: number;
	readonly #stall = new Map<string, StallState>();
	readonly #jobs = new JobTracker();
	readonly #launchers: LauncherReader;
	/** argv and environ per process identity (see #facts): both only change with exec. */
	readonly #cache = new Map<string, CachedFacts>();
	#tree: RankTree = {ranks: [], jobs: [], launcher: null};
	#runDirMatch: RankSet['runDirMatch'] = null;
	/** Each job's first rank's working directory, read at the last full scan. */
	#cwds = new Map<string, string | null>();
	#lastScanAt = -Infinity;
	#search = '';

	constructor(options: RankSamplerOptions) {
		this.#options = options;
		this.#now = options.now ?? Date.now;
		this.#launchers = new LauncherReader(options.proc);
		this.#self = options.self ?? {pid: process.pid, uid: process.getuid?.() ?? -1};
		this.#bootTimeMs = options.bootTimeMs ?? readBootTimeMs();
	}

	async sample(gpu: GpuProcessTable | null = null): Promise<RankSet> {
		const now = this.#now();
		const {proc} = this.#options;
		// With no ranks yet, a job that starts is found at the next full scan (at most rescanEveryMs):
		// scanning the whole table every sample while idle would cost more than everything else.
		if (now - this.#lastScanAt >= (this.#options.rescanEveryMs ?? 10_000)) this.#rescan(now);
		const read = () =>
			this.#tree.ranks.map(r => ({r, stat: proc.stat(r.process.pid), status: proc.status(r.process.pid)}));
		let reads = read();
		const gone = reads.filter(
			({r, stat}) => stat === null || stat.startTime !== r.process.startTime || stat.state === 'Z',
		);
		if (gone.length > 0) {
			// A zombie still says how it ended (its parent has not reaped it yet): keep that for the exit event.
			for (const {stat, r} of gone)
				if (stat?.state === 'Z' && stat.startTime === r.process.startTime && stat.exitCode !== null)
					this.#jobs.noteExit(stat, decodeWaitStatus(stat.exitCode));
			// A rank exited or was replaced (same pid, new start time): the tree is stale, scan again.
			this.#rescan(now);
			reads = read();
		}
		const byPid = new Map<number, RankProcess>();
		const seen = new Set<string>();
		for (const {r, stat, status} of reads) {
			if (!stat || !status || stat.startTime !== r.process.startTime || stat.state === 'Z') continue;
			const id = processIdentity(stat);
			seen.add(id);
			const previous = this.#stall.get(id);
			const ticks = stat.utime + stat.stime;
			// CPU % over the time since the previous sample, whose ticks and time the stall state keeps.
			const cpuPercent =
				previous && now > previous.at
					? ((ticks - previous.ticks) / CLOCK_TICKS_PER_SECOND / ((now - previous.at) / 1000)) * 100
					: null;
			const stall = nextStall(previous, {ticks, state: stat.state, now}, this.#options.stallAfterMs ?? 60_000);
			this.#stall.set(id, stall);
			const env = r.process.env ?? new Map<string, string>();
			byPid.set(stat.pid, {
				rank: r.ids.rank,
				localRank: r.ids.localRank,
				worldSize: r.ids.worldSize,
				pid: stat.pid,
				ppid: stat.ppid,
				startTime: stat.startTime,
				startedAt: this.#bootTimeMs + (stat.startTime / CLOCK_TICKS_PER_SECOND) * 1000,
				host: this.#options.host,
				cmd: r.process.argv.join(' '),
				state: stat.state,
				cpuPercent,
				rssBytes: status.vmRssBytes,
				gpuMemoryBytes: gpuMemoryOf([stat.pid, ...r.workers], gpu),
				signals: signalStates(status),
				workers: r.workers,
				// The task only where its step is proven (job-proof.ts): a stranger's copy of the job's variables must not
				// make it a task of the scheduler's job for its signal route or its pane.
				task: r.inStep ? taskFromEnv(env) : null,
				stalled: stall.stalled,
				stopped: stat.state === 'T' || stat.state === 't',
				job: '',
			});
		}
		for (const id of this.#stall.keys()) if (!seen.has(id)) this.#stall.delete(id);

		const current: Job[] = this.#tree.jobs.flatMap(group => {
			const ranks = group.ranks.flatMap(member => {
				const rank = byPid.get(member.process.pid);
				return rank ? [{...rank, job: group.id}] : [];
			});
			if (ranks.length === 0) return [];
			const launcher = group.launcher && this.#launchers.launcher(group.launcher);
			const runDir =
				this.#runDirMatch?.jobs.length === 1 && this.#runDirMatch.jobs[0] === group.id
					? (this.#options.runDir ?? null)
					: null;
			const cwd = this.#cwds.get(group.id) ?? null;
			const job = describeJob(group.id, group.identity, launcher, ranks, group.ranks, runDir, cwd);
			return [
				{...job, provenBy: group.provenBy, unproven: group.unproven.map(u => unprovenMember(u.member, u.reason))},
			];
		});
		const {jobs, departed, ended} = this.#jobs.update(current, now, launcher => this.#alive(launcher));
		const only = jobs.length === 1 ? jobs[0]!.launcher : null;
		return {
			ranks: jobs.flatMap(job => job.ranks),
			jobs,
			launcher: only,
			departed,
			ended,
			runDirMatch: this.#runDirMatch,
			search: this.#search,
			sampledAt: now,
		};
	}

	/** Is the launcher still there? A zombie is not, and says how it ended. */
	#alive(launcher: LauncherProcess): boolean {
		const stat = this.#options.proc.stat(launcher.pid);
		if (!stat || stat.startTime !== launcher.startTime) return false;
		if (stat.state !== 'Z') return true;
		if (stat.exitCode !== null) this.#jobs.noteExit(stat, decodeWaitStatus(stat.exitCode));
		return false;
	}

	#rescan(now: number): void {
		const {proc, selector} = this.#options;
		const facts = proc.listPids().map(pid => this.#facts(pid));
		const present = facts.filter((f): f is ProcessFacts => f !== null);
		const live = new Set(present.map(f => processIdentity(f)));
		for (const key of this.#cache.keys()) if (!live.has(key.slice(0, key.indexOf('|')))) this.#cache.delete(key);
		this.#tree = buildRankTree(present, selector, this.#self, {
			scheduledJob: this.#options.scheduledJob ?? null,
			cgroupOf: pid => proc.cgroup?.(pid) ?? null,
			usesGpu: pid => proc.openFiles(pid)?.some(file => file.startsWith('/dev/nvidia')) ?? false,
		});
		// Each rank's cwd is read at most once a scan: the jobs' places and the RUN_DIR match both use it.
		const cwds = new Map<number, string | null>();
		const cwdOf = (pid: number): string | null => {
			if (!cwds.has(pid)) cwds.set(pid, proc.cwd(pid));
			return cwds.get(pid) ?? null;
		};
		this.#cwds = new Map(this.#tree.jobs.map(job => [job.id, cwdOf(job.ranks[0]!.process.pid)]));
		this.#runDirMatch = this.#matchRunDir(cwdOf);
		this.#search = searchText(selector, selector.kind !== 'pid' || proc.stat(selector.pid) !== null);
		this.#lastScanAt = now;
	}

	/**
	 * Which job names the RUN_DIR: command lines and working directories first (cheap); open files are read
	 * only when those settle nothing, and only at a full scan.
	 */
	#matchRunDir(cwdOf: (pid: number) => string | null): RankSet['runDirMatch'] {
		const runDir = this.#options.runDir;
		if (!runDir) return null;
		const {proc} = this.#options;
		const evidence = (withFiles: boolean) =>
			new Map<string, RunDirEvidence | null>(
				this.#tree.jobs.map(job => [
					job.id,
					jobEvidence(
						job.ranks.map(r => ({
							argv: r.process.argv,
							cwd: cwdOf(r.process.pid),
							openFiles: withFiles ? proc.openFiles(r.process.pid) : null,
						})),
						path.resolve(runDir),
					),
				]),
			);
		let match = jobsNaming(evidence(false));
		if (match.evidence !== 'command line' && match.evidence !== 'working directory') {
			const withFiles = jobsNaming(evidence(true));
			if (withFiles.ids.length > 0) match = withFiles;
		}
		// A --pid that finds one job has picked it: RUN_DIR is its run dir, whatever its ranks show (as in signal).
		if (match.ids.length === 0 && this.#options.selector.kind === 'pid' && this.#tree.jobs.length === 1)
			return {jobs: [this.#tree.jobs[0]!.id], evidence: '--pid'};
		return {jobs: match.ids, evidence: match.evidence};
	}

	/**
	 * One process's facts: stat and owner on every scan, argv and environ once per identity. exec
	 * replaces both without changing pid or start time, but usually changes comm, which is part of the
	 * key; and a "not a rank" verdict is only kept for processes older than 10 s, so a fork that has
	 * not exec'd yet (torchrun's Popen before python starts) is looked at again.
	 */
	#facts(pid: number): ProcessFacts | null {
		const {proc} = this.#options;
		const stat = proc.stat(pid);
		const uid = stat && proc.owner(pid);
		if (!stat || uid === null || uid === undefined) return null;
		const base = {pid, ppid: stat.ppid, uid, startTime: stat.startTime, comm: stat.comm, session: stat.session};
		// Other users' environments are unreadable anyway, and their processes never ours to signal. A step daemon's
		// title (root's) is read: it proves which step the tasks under it belong to (ranks/job-proof.ts).
		if (uid !== this.#self.uid)
			return {...base, argv: isStepDaemon(stat.comm) ? (proc.cmdline(pid) ?? []) : [], env: null};
		const key = `${processIdentity(stat)}|${stat.comm}`;
		const cached = this.#cache.get(key);
		if (cached) return {...base, ...cached};
		const argv = proc.cmdline(pid) ?? [];
		const env = proc.environ(pid);
		const isRank = carriesRank(env);
		const ageMs = this.#now() - (this.#bootTimeMs + (stat.startTime / CLOCK_TICKS_PER_SECOND) * 1000);
		// Keep only what matters: a rank's environment, or an old process's argv and the launcher's variables of its
		// environment (launcher-process.ts). Job identity needs the launcher's argv too (its name).
		if (isRank || ageMs > 10_000) this.#cache.set(key, {argv, env: isRank ? env : launcherVariables(env)});
		return {...base, argv, env};
	}
}

function unprovenMember(member: TreeRank, reason: UnprovenReason): UnprovenMember {
	const {process, ids} = member;
	return {
		pid: process.pid,
		ppid: process.ppid,
		rank: ids.rank,
		cmd: process.argv.join(' '),
		membership: {proven: false, reason},
	};
}

/** Sum of the GPU memory the processes hold; null when the per-process table has never been read. */
export function gpuMemoryOf(pids: readonly number[], gpu: GpuProcessTable | null): number | null {
	if (!gpu || gpu.sampledAt === null) return null;
	const rows = gpu.processes.filter(p => pids.includes(p.pid));
	if (rows.length > 0 && rows.every(p => p.usedBytes === null)) return null;
	return rows.reduce((sum, p) => sum + (p.usedBytes ?? 0), 0);
}

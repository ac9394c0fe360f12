import {readFileSync} from 'node:fs';
import {processIdentity, type GpuProcessTable, type RankProcess, type RankSet} from '../core/types.js';
import type {ProcReader, ProcStat} from '../system/procfs.js';
import {signalStates} from './dispositions.js';
import {slurmInfo} from './slurm.js';
import {buildRankTree, carriesRank, type ProcessFacts, type RankSelector, type RankTree} from './tree.js';

/** Linux reports CPU times and start times in USER_HZ, which is 100 on every architecture it runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

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
	/** Epoch ms of boot, to turn start ticks into times; read from /proc/stat by default. */
	readonly bootTimeMs?: number;
}

interface CpuMark {
	readonly ticks: number;
	readonly at: number;
	/** When the CPU time last advanced. */
	readonly advancedAt: number;
}

/** Boot time from /proc/stat's btime line; 0 if unreadable (start times are then relative). */
function readBootTimeMs(procRoot = '/proc'): number {
	try {
		const match = /^btime (\d+)$/m.exec(readFileSync(`${procRoot}/stat`, 'utf8'));
		return match ? Number(match[1]) * 1000 : 0;
	} catch {
		return 0;
	}
}

/**
 * Finds the job's ranks and measures them. Each sample re-reads stat and status of the known ranks
 * (CPU, memory, signal state); the whole process table is read again only every `rescanEveryMs`
 * (or when a known rank is gone), because reading every /proc entry each tick would cost more than
 * the rest of traintop together.
 */
export class RankSampler {
	readonly #options: RankSamplerOptions;
	readonly #now: () => number;
	readonly #self: {readonly pid: number; readonly uid: number};
	readonly #bootTimeMs: number;
	readonly #cpu = new Map<string, CpuMark>();
	/** argv and environ per process identity (see #facts): both only change with exec. */
	readonly #cache = new Map<
		string,
		{readonly argv: readonly string[]; readonly env: ReadonlyMap<string, string> | null}
	>();
	#tree: RankTree = {ranks: [], launcher: null};
	#lastScanAt = -Infinity;

	constructor(options: RankSamplerOptions) {
		this.#options = options;
		this.#now = options.now ?? Date.now;
		this.#self = options.self ?? {pid: process.pid, uid: process.getuid?.() ?? -1};
		this.#bootTimeMs = options.bootTimeMs ?? readBootTimeMs();
	}

	async sample(gpu: GpuProcessTable | null = null): Promise<RankSet> {
		const now = this.#now();
		const {proc} = this.#options;
		// With no ranks yet, a job that starts is found at the next full scan (at most rescanEveryMs):
		// scanning the whole table every sample while idle would cost more than everything else.
		if (now - this.#lastScanAt >= (this.#options.rescanEveryMs ?? 10_000)) {
			this.#scan();
			this.#lastScanAt = now;
		}
		const read = () =>
			this.#tree.ranks.map(r => ({r, stat: proc.stat(r.process.pid), status: proc.status(r.process.pid)}));
		let reads = read();
		// A rank that exited or was replaced (same pid, new start time): the tree is stale, scan again.
		if (reads.some(({r, stat}) => stat === null || stat.startTime !== r.process.startTime)) {
			this.#scan();
			this.#lastScanAt = now;
			reads = read();
		}
		const ranks: RankProcess[] = [];
		const seen = new Set<string>();
		for (const {r, stat, status} of reads) {
			if (!stat || !status || stat.startTime !== r.process.startTime) continue;
			const id = processIdentity(stat);
			seen.add(id);
			const {cpuPercent, stalled} = this.#measureCpu(id, stat, now);
			const env = r.process.env ?? new Map<string, string>();
			ranks.push({
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
				slurm: slurmInfo(env),
				stalled,
			});
		}
		for (const id of this.#cpu.keys()) if (!seen.has(id)) this.#cpu.delete(id);
		const launcher = this.#tree.launcher;
		return {
			ranks,
			launcher: launcher ? {pid: launcher.pid, startTime: launcher.startTime, cmd: launcher.argv.join(' ')} : null,
			sampledAt: now,
		};
	}

	#measureCpu(id: string, stat: ProcStat, now: number): {cpuPercent: number | null; stalled: boolean} {
		const ticks = stat.utime + stat.stime;
		const previous = this.#cpu.get(id);
		const advancedAt = !previous || ticks > previous.ticks ? now : previous.advancedAt;
		this.#cpu.set(id, {ticks, at: now, advancedAt});
		const cpuPercent =
			previous && now > previous.at
				? ((ticks - previous.ticks) / CLOCK_TICKS_PER_SECOND / ((now - previous.at) / 1000)) * 100
				: null;
		const stalled =
			(stat.state === 'R' || stat.state === 'S') && now - advancedAt >= (this.#options.stallAfterMs ?? 60_000);
		return {cpuPercent, stalled};
	}

	#scan(): void {
		const {proc, selector} = this.#options;
		const facts = proc.listPids().map(pid => this.#facts(pid));
		const present = facts.filter((f): f is ProcessFacts => f !== null);
		const live = new Set(present.map(f => processIdentity(f)));
		for (const key of this.#cache.keys()) if (!live.has(key.slice(0, key.indexOf('|')))) this.#cache.delete(key);
		this.#tree = buildRankTree(present, selector, this.#self);
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
		const base = {pid, ppid: stat.ppid, uid, startTime: stat.startTime};
		// Other users' environments are unreadable anyway, and their processes never ours to signal.
		if (uid !== this.#self.uid) return {...base, argv: [], env: null};
		const key = `${processIdentity(stat)}|${stat.comm}`;
		const cached = this.#cache.get(key);
		if (cached) return {...base, ...cached};
		const argv = proc.cmdline(pid) ?? [];
		const env = proc.environ(pid);
		const isRank = carriesRank(env);
		const ageMs = this.#now() - (this.#bootTimeMs + (stat.startTime / CLOCK_TICKS_PER_SECOND) * 1000);
		// Keep only what matters: a rank's environment, or an old process's argv with no environment.
		if (isRank || ageMs > 10_000) this.#cache.set(key, {argv, env: isRank ? env : new Map()});
		return {...base, argv, env};
	}
}

/** Sum of the GPU memory the processes hold; null when the per-process table has never been read. */
export function gpuMemoryOf(pids: readonly number[], gpu: GpuProcessTable | null): number | null {
	if (!gpu || gpu.sampledAt === null) return null;
	const rows = gpu.processes.filter(p => pids.includes(p.pid));
	if (rows.length > 0 && rows.every(p => p.usedBytes === null)) return null;
	return rows.reduce((sum, p) => sum + (p.usedBytes ?? 0), 0);
}

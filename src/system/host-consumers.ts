import type {HostConsumer, HostConsumers} from '../core/memory-types.js';
import type {RankSet} from '../core/types.js';
import {printable} from '../format/printable.js';
import {type ProcReader, procReader} from './procfs.js';
import {UserNames} from './user-names.js';

// The host's top consumers that are not the job, read only while the host is short of RAM (core/host-short.ts):
// "it is not your job" at a glance, as htop shows it — largest first, with user and command. Two passes, so that
// the costly read is paid for a few processes only: every pid's resident size from /proc/PID/statm (one small
// read each), then /proc/PID/smaps_rollup's `Pss:` for the largest few (the kernel walks the whole address space:
// ~400 µs for a 230 MB process, measured here), ranked by PSS (shared pages divided among their users).

/** Not more often than this while short: a scan of every pid is the costliest read traintop makes. */
const CONSUMERS_EVERY_MS = 10_000;
/**
 * …and then not more than this share of a core (the budget of one feature): smaps_rollup's walk grows with the
 * process, 2 ms for a 120 MB node process measured here on a loaded machine, so a host of 30 GB hogs waits longer.
 */
const CORE_SHARE = 0.002;
/** Processes whose PSS is read: the largest by RSS, since PSS ≤ RSS. */
const CANDIDATES = 8;
const TOP = 5;
/** A command line longer than this is cut (a view cuts it at its width; the JSON keeps this much). */
const CMD_MAX = 400;

/** /proc/PID/statm's second field: resident pages; null when it is not a statm line. */
export function parseStatmResident(text: string): number | null {
	const resident = Number(text.split(' ')[1]);
	return Number.isInteger(resident) && resident >= 0 ? resident : null;
}

/** smaps_rollup's `Pss:` line in bytes; null when there is none. */
export function parsePss(text: string): number | null {
	const match = /^Pss:\s+(\d+) kB$/m.exec(text);
	return match ? Number(match[1]) * 1024 : null;
}

/**
 * The kernel's page size from traintop's own /proc entries (statm counts pages, status kB): node has no sysconf. The
 * two reads are microseconds apart, so the ratio is rounded to a power of two; 4 KiB when unreadable.
 */
export function pageSize(proc: ProcReader, pid = process.pid): number {
	const pages = parseStatmResident(proc.file?.(pid, 'statm') ?? '');
	const rss = proc.status(pid)?.vmRssBytes ?? null;
	if (!pages || rss === null) return 4096;
	return 2 ** Math.round(Math.log2(rss / pages));
}

/** The job's processes (each rank, its workers, each launcher) and traintop itself: never listed. */
function jobPids(ranks: RankSet | null, self: number): Set<number> {
	const pids = new Set<number>([self]);
	for (const rank of ranks?.ranks ?? []) {
		pids.add(rank.pid);
		for (const worker of rank.workers) pids.add(worker);
	}
	if (ranks?.launcher) pids.add(ranks.launcher.pid);
	for (const job of ranks?.jobs ?? []) if (job.launcher) pids.add(job.launcher.pid);
	return pids;
}

export interface HostConsumersReaderOptions {
	readonly proc?: ProcReader;
	readonly users?: UserNames;
	readonly now?: () => number;
	readonly everyMs?: number;
	/** The share of a core the reads may take at most (default 0.2 %). */
	readonly coreShare?: number;
	/** traintop's own pid (never listed). */
	readonly self?: number;
}

export class HostConsumersReader {
	readonly #proc: ProcReader;
	readonly #users: UserNames;
	readonly #now: () => number;
	readonly #everyMs: number;
	readonly #coreShare: number;
	readonly #self: number;
	#pageSize: number | null = null;
	#last: HostConsumers | null = null;
	/** Wall ms the last scan took: the next waits long enough to keep within CORE_SHARE. */
	#scanMs = 0;

	constructor(options: HostConsumersReaderOptions = {}) {
		this.#proc = options.proc ?? procReader();
		this.#users = options.users ?? new UserNames();
		this.#now = options.now ?? Date.now;
		this.#everyMs = options.everyMs ?? CONSUMERS_EVERY_MS;
		this.#coreShare = options.coreShare ?? CORE_SHARE;
		this.#self = options.self ?? process.pid;
	}

	/** The list while `short` (the same object until the next read), null while not. */
	read(ranks: RankSet | null, short: boolean): HostConsumers | null {
		if (!short) {
			this.#last = null;
			return null;
		}
		const now = this.#now();
		const wait = Math.max(this.#everyMs, this.#scanMs / this.#coreShare);
		if (this.#last !== null && now - this.#last.sampledAt < wait) return this.#last;
		const started = performance.now();
		this.#last = this.#scan(ranks, now);
		this.#scanMs = performance.now() - started;
		return this.#last;
	}

	#scan(ranks: RankSet | null, now: number): HostConsumers {
		const proc = this.#proc;
		this.#pageSize ??= pageSize(proc, this.#self);
		const page = this.#pageSize;
		const excluded = jobPids(ranks, this.#self);
		const sized: {pid: number; rssBytes: number}[] = [];
		let scanned = 0;
		for (const pid of proc.listPids()) {
			if (excluded.has(pid)) continue;
			const pages = parseStatmResident(proc.file?.(pid, 'statm') ?? '');
			if (pages === null) continue; // exited since the listing
			scanned++;
			if (pages > 0) sized.push({pid, rssBytes: pages * page}); // kernel threads have none
		}
		sized.sort((a, b) => b.rssBytes - a.rssBytes);
		const top = sized
			.slice(0, CANDIDATES)
			.map(({pid, rssBytes}) => this.#consumer(pid, rssBytes))
			.filter(c => c !== null)
			.sort((a, b) => (b.pssBytes ?? b.rssBytes ?? 0) - (a.pssBytes ?? a.rssBytes ?? 0))
			.slice(0, TOP);
		return {sampledAt: now, top, scanned};
	}

	/** Its PSS, user and command; null when it exited meanwhile. */
	#consumer(pid: number, rssBytes: number): HostConsumer | null {
		const proc = this.#proc;
		const uid = proc.owner(pid);
		if (uid === null) return null;
		// Another user's smaps_rollup needs ptrace rights (root): unreadable, it counts by RSS.
		const rollup = proc.file?.(pid, 'smaps_rollup') ?? null;
		const argv = proc.cmdline(pid) ?? [];
		const cmd = argv.length > 0 ? argv.join(' ') : `[${proc.stat(pid)?.comm ?? '?'}]`;
		return {
			pid,
			user: printable(this.#users.nameOf(uid)),
			cmd: printable(cmd.length > CMD_MAX ? `${cmd.slice(0, CMD_MAX - 1)}…` : cmd),
			pssBytes: rollup === null ? null : parsePss(rollup),
			rssBytes,
		};
	}
}

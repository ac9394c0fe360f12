import type {JobMemory, ProcessMemory, RankMemory} from '../core/memory-types.js';
import {processIdentity, type RankProcess, type RankSet} from '../core/types.js';
import type {ProcReader} from '../system/procfs.js';
import {parseSmapsRollup} from '../system/smaps-rollup.js';
import {pageSizeOf} from './page-size.js';
import {sameJobMemory, sumOrNull} from './job-memory-sums.js';

// Each job's own memory, read right after each rank scan: every rank (its VmRSS from the scan) and each of its
// DataLoader workers (one read of /proc/PID/stat: its identity and its resident pages together, where statm would
// give the pages without the start time that tells a reused pid apart), by RSS; and by PSS from smaps_rollup, which
// walks the page tables (~400 µs for a 230 MB python3) and so is read only every `pssEveryMs`, and at once for a
// process not read before (a new DataLoader worker each epoch would otherwise leave the sums unknown for up to 15 s).
// PSS is what adds up: forked workers share their rank's pages copy-on-write, and summed RSS counts them in each.

export interface JobMemoryOptions {
	/** How often every process's PSS is read again (default 15 s); in between each keeps its last figure. */
	readonly pssEveryMs?: number;
	/** The kernel's page size (stat's resident count is in pages); read off traintop's own process by default. */
	readonly pageSize?: number;
}

const DEFAULT_PSS_EVERY_MS = 15_000;

interface Pss {
	readonly bytes: number | null;
}

export class JobMemoryReader {
	readonly #proc: ProcReader;
	readonly #pssEveryMs: number;
	#pageSize: number | null;
	/** Each process's last PSS by identity (pid@start time): a pid reused by another process is read afresh. */
	#pss = new Map<string, Pss>();
	#pssReadAt: number | null = null;
	#last: readonly JobMemory[] = [];

	constructor(proc: ProcReader, options: JobMemoryOptions = {}) {
		this.#proc = proc;
		this.#pssEveryMs = options.pssEveryMs ?? DEFAULT_PSS_EVERY_MS;
		this.#pageSize = options.pageSize ?? null;
	}

	/** The jobs' memory at the scan `set`; the array of the last read when no figure in it changed. */
	read(set: RankSet): readonly JobMemory[] {
		const now = set.sampledAt;
		const full = this.#pssReadAt === null || now - this.#pssReadAt >= this.#pssEveryMs;
		if (full) this.#pssReadAt = now;
		const seen = new Map<string, Pss>();
		const pssOf = (pid: number, startTime: number): number | null => {
			const id = processIdentity({pid, startTime});
			const kept = full ? undefined : this.#pss.get(id);
			const pss = kept ?? {bytes: this.#readPss(pid)};
			seen.set(id, pss);
			return pss.bytes;
		};
		// A job with no rank left (its launcher restarting them) has nothing of its own to read: the launcher is not counted.
		const jobs = set.jobs
			.filter(job => job.ranks.length > 0)
			.map(job => {
				const ranks = job.ranks.map(rank => this.#rankMemory(rank, pssOf));
				return {
					job: job.id,
					ranks,
					rssBytes: sumOrNull(ranks.map(r => r.rssBytes)),
					pssBytes: sumOrNull(ranks.map(r => r.pssBytes)),
					gpuBytes: sumOrNull(ranks.map(r => r.gpuBytes)),
					pssAt: this.#pssReadAt,
					// The trend judge (core/memory-trend.ts) fills these in.
					trends: [],
					reachesThresholdAt: null,
					growthBytesPerMin: 0,
				} satisfies JobMemory;
			});
		// Only processes of this scan are kept: an exited worker's figure goes with it.
		this.#pss = seen;
		if (!sameJobMemory(this.#last, jobs)) this.#last = jobs;
		return this.#last;
	}

	#rankMemory(rank: RankProcess, pssOf: (pid: number, startTime: number) => number | null): RankMemory {
		const self: ProcessMemory = {pid: rank.pid, rssBytes: rank.rssBytes, pssBytes: pssOf(rank.pid, rank.startTime)};
		const workers = rank.workers.flatMap(pid => {
			const stat = this.#proc.stat(pid);
			// Gone since the scan (or a zombie, which holds no memory): not the rank's any more.
			if (!stat || stat.state === 'Z') return [];
			const worker: ProcessMemory = {
				pid,
				rssBytes: stat.rssPages * this.#pageSizeNow(),
				pssBytes: pssOf(pid, stat.startTime),
			};
			return [worker];
		});
		const all = [self, ...workers];
		return {
			rank: rank.rank,
			pid: rank.pid,
			self,
			workers,
			// A worker's RSS is known whenever it is listed (its stat was read); only the rank's own may be unknown.
			rssBytes: self.rssBytes === null ? null : all.reduce((sum, p) => sum + (p.rssBytes ?? 0), 0),
			pssBytes: sumOrNull(all.map(p => p.pssBytes)),
			gpuBytes: rank.gpuMemoryBytes,
		};
	}

	#readPss(pid: number): number | null {
		const text = this.#proc.file?.(pid, 'smaps_rollup') ?? null;
		return text === null ? null : (parseSmapsRollup(text)?.pssBytes ?? null);
	}

	#pageSizeNow(): number {
		this.#pageSize ??= pageSizeOf(this.#proc);
		return this.#pageSize;
	}
}

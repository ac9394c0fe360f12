import type {JobMemory, ProcessMemory, RankMemory} from '../core/memory-types.js';
import {processIdentity, type RankProcess, type RankSet} from '../core/types.js';
import type {ProcReader} from '../system/procfs.js';
import {parseSmapsRollup} from '../system/smaps-rollup.js';
import {pageSizeOf} from './page-size.js';
import {sameJobMemory, sumOrNull} from './job-memory-sums.js';
import {type PssBudget, PssCache, type PssFigure} from './pss-cache.js';

// Each job's own memory, read right after each rank scan: every rank (its VmRSS from the scan) and each of its
// DataLoader workers (one read of /proc/PID/stat: its identity and its resident pages together, where statm would
// give the pages without the start time that tells a reused pid apart), by RSS; and by PSS from smaps_rollup, on the
// budget pss-cache.ts keeps (it walks the page tables: milliseconds for a large process). PSS is what adds up: forked
// workers share their rank's pages copy-on-write, and summed RSS counts them in each.

export interface JobMemoryOptions {
	/** How often PSS is read again, and what it may cost (pss-cache.ts). */
	readonly pss?: PssBudget;
	/** The kernel's page size (stat's resident count is in pages); read off traintop's own process by default. */
	readonly pageSize?: number;
}

/** A rank's workers as read at this scan: their stat's pid, start time and resident pages. */
interface Worker {
	readonly pid: number;
	readonly startTime: number;
	readonly rssPages: number;
}

export class JobMemoryReader {
	readonly #proc: ProcReader;
	readonly #pss: PssCache;
	#pageSize: number | null;
	#last: readonly JobMemory[] = [];

	constructor(proc: ProcReader, options: JobMemoryOptions = {}) {
		this.#proc = proc;
		this.#pss = new PssCache(pid => this.#readPss(pid), options.pss);
		this.#pageSize = options.pageSize ?? null;
	}

	/** The jobs' memory at the scan `set`; the array of the last read when no figure in it changed. */
	read(set: RankSet): readonly JobMemory[] {
		// A job with no rank left (its launcher restarting them) has nothing of its own to read: the launcher is not counted.
		const jobs = set.jobs.filter(job => job.ranks.length > 0);
		const workers = new Map(jobs.flatMap(job => job.ranks.map(rank => [rank.pid, this.#workers(rank)] as const)));
		const processes = jobs.flatMap(job => job.ranks.flatMap(rank => [rank, ...(workers.get(rank.pid) ?? [])]));
		const pss = this.#pss.update(processes, set.sampledAt);
		const memory = jobs.map(job => {
			const ranks = job.ranks.map(rank => this.#rankMemory(rank, workers.get(rank.pid) ?? [], pss));
			const read = job.ranks.flatMap(rank => [rank, ...(workers.get(rank.pid) ?? [])]);
			return {
				job: job.id,
				ranks,
				rssBytes: sumOrNull(ranks.map(r => r.rssBytes)),
				pssBytes: sumOrNull(ranks.map(r => r.pssBytes)),
				gpuBytes: sumOrNull(ranks.map(r => r.gpuBytes)),
				// The oldest figure's time: every PSS in the sums is at least that fresh.
				pssAt: Math.min(...read.map(p => pss.get(processIdentity(p))?.at ?? set.sampledAt)),
				// The trend judge (core/memory-trend.ts) fills these in.
				trends: [],
				reachesThresholdAt: null,
				growthBytesPerMin: 0,
			} satisfies JobMemory;
		});
		if (!sameJobMemory(this.#last, memory)) this.#last = memory;
		return this.#last;
	}

	#workers(rank: RankProcess): Worker[] {
		return rank.workers.flatMap(pid => {
			const stat = this.#proc.stat(pid);
			// Gone since the scan (or a zombie, which holds no memory): not the rank's any more.
			return !stat || stat.state === 'Z' ? [] : [{pid, startTime: stat.startTime, rssPages: stat.rssPages}];
		});
	}

	#rankMemory(rank: RankProcess, workers: readonly Worker[], pss: ReadonlyMap<string, PssFigure>): RankMemory {
		const pssOf = (p: {readonly pid: number; readonly startTime: number}) => pss.get(processIdentity(p))?.bytes ?? null;
		const self: ProcessMemory = {pid: rank.pid, rssBytes: rank.rssBytes, pssBytes: pssOf(rank)};
		const own = workers.map(w => ({pid: w.pid, rssBytes: w.rssPages * this.#pageSizeNow(), pssBytes: pssOf(w)}));
		const all = [self, ...own];
		return {
			rank: rank.rank,
			pid: rank.pid,
			self,
			workers: own,
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

import {performance} from 'node:perf_hooks';
import {processIdentity} from '../core/types.js';

// Each process's PSS, read from smaps_rollup on a budget. The read walks the process's page tables: measured here
// (Linux 6.18, a python3 rank and 4 forked workers sharing a numpy array) 1.0 ms a process at 200 MiB and 6.5 ms at
// 2 GiB, against 9–14 µs for stat. Eight such ranks with four workers each, all read every 15 s, would cost ~2 % of a
// core and hold the event loop ~260 ms at once. So:
// - a process is read again once its figure is `everyMs` old, or older where the reads would otherwise cost more than
//   `cpuShare` of a core (the interval grows with the measured cost × the processes watched);
// - one scan refreshes the oldest figures first and stops once its reads took `scanMs`, so a frame never waits long;
//   the rest are refreshed at the next scans (each figure keeps the time it was read);
// - a process with no figure yet is read at once, whatever the scan has spent: without it its job's sum is unknown.

export interface PssFigure {
	/** null: unreadable (another user's process, a kernel without smaps_rollup). */
	readonly bytes: number | null;
	/** Epoch ms it was read. */
	readonly at: number;
}

export interface PssBudget {
	/** The shortest interval between two reads of one process (default 15 s). */
	readonly everyMs?: number;
	/** The share of one core the reads may take on average (default 0.001: 0.1 %). */
	readonly cpuShare?: number;
	/** What one scan may spend on re-reads, at least one (default 10 ms). */
	readonly scanMs?: number;
}

export interface ProcessId {
	readonly pid: number;
	readonly startTime: number;
}

export class PssCache {
	readonly #read: (pid: number) => number | null;
	readonly #everyMs: number;
	readonly #cpuShare: number;
	readonly #scanMs: number;
	#figures = new Map<string, PssFigure>();
	/** The measured cost of one read, ms (a moving average); 0 before the first. */
	#costMs = 0;

	constructor(read: (pid: number) => number | null, budget: PssBudget = {}) {
		this.#read = read;
		this.#everyMs = budget.everyMs ?? 15_000;
		this.#cpuShare = budget.cpuShare ?? 0.001;
		this.#scanMs = budget.scanMs ?? 10;
	}

	/** How old a figure may grow: `everyMs`, or longer where reading them all that often would exceed the budget. */
	intervalMs(count: number): number {
		return Math.max(this.#everyMs, (count * this.#costMs) / this.#cpuShare);
	}

	/** The figures of the processes of a scan at `now`: new ones read, the oldest stale ones refreshed, gone ones dropped. */
	update(processes: readonly ProcessId[], now: number): ReadonlyMap<string, PssFigure> {
		const figures = new Map<string, PssFigure>();
		const stale: {readonly id: string; readonly pid: number; readonly at: number}[] = [];
		const interval = this.intervalMs(processes.length);
		for (const process of processes) {
			const id = processIdentity(process);
			const kept = this.#figures.get(id);
			if (kept === undefined) figures.set(id, this.#timed(process.pid, now));
			else {
				figures.set(id, kept);
				if (now - kept.at >= interval) stale.push({id, pid: process.pid, at: kept.at});
			}
		}
		stale.sort((a, b) => a.at - b.at);
		let spent = 0;
		for (const [i, {id, pid}] of stale.entries()) {
			if (i > 0 && spent >= this.#scanMs) break;
			const start = performance.now();
			figures.set(id, this.#timed(pid, now));
			spent += performance.now() - start;
		}
		// Only this scan's processes are kept: an exited worker's figure goes with it.
		this.#figures = figures;
		return figures;
	}

	#timed(pid: number, now: number): PssFigure {
		const start = performance.now();
		const bytes = this.#read(pid);
		const took = performance.now() - start;
		this.#costMs = this.#costMs === 0 ? took : 0.8 * this.#costMs + 0.2 * took;
		return {bytes, at: now};
	}
}

import type {RankSet} from '../core/job-types.js';
import type {ProcessWait, RankWaits} from '../core/progress-types.js';
import {processIdentity} from '../core/types.js';
import type {ProcReader} from '../system/procfs.js';
import {CLOCK_TICKS_PER_SECOND} from './proc-clock.js';

// Where each rank that is not computing waits: its main thread's kernel wait channel (/proc/PID/wchan), and the state,
// CPU and wait channel of its DataLoader workers. Read after each rank scan, and only for ranks that used under
// BUSY_PERCENT of a core since the previous scan: a healthy job's ranks compute, so the steady state costs no read at
// all; a rank that waits costs one small file, and its workers two each. Never the job's help, never a signal.

/** A rank above this share of a core since the previous scan is computing: its wait channel is not read. */
export const BUSY_PERCENT = 5;

/** The kernel function a thread sleeps in; null for "0" (running, or a kernel that hides it) or unreadable. */
export function parseWchan(text: string | null): string | null {
	const name = text?.trim() ?? '';
	return name === '' || name === '0' ? null : name;
}

export class WaitReader {
	readonly #proc: ProcReader;
	/** Each worker's CPU ticks and when they were read, by identity, to give its share of a core. */
	#ticks = new Map<string, {readonly ticks: number; readonly at: number}>();

	constructor(proc: ProcReader) {
		this.#proc = proc;
	}

	read(set: RankSet): RankWaits {
		const waits = new Map<number, {readonly wchan: string | null; readonly workers: readonly ProcessWait[]}>();
		const ticks = new Map<string, {readonly ticks: number; readonly at: number}>();
		for (const rank of set.ranks) {
			const busy = rank.state === 'R' && rank.cpuPercent !== null && rank.cpuPercent >= BUSY_PERCENT;
			if (busy) continue;
			const wchan = parseWchan(this.#proc.file?.(rank.pid, 'wchan') ?? null);
			const workers = rank.workers.flatMap(pid => {
				const stat = this.#proc.stat(pid);
				if (!stat) return [];
				const id = processIdentity(stat);
				const now = stat.utime + stat.stime;
				const before = this.#ticks.get(id);
				ticks.set(id, {ticks: now, at: set.sampledAt});
				const cpuPercent =
					before && set.sampledAt > before.at
						? ((now - before.ticks) / CLOCK_TICKS_PER_SECOND / ((set.sampledAt - before.at) / 1000)) * 100
						: null;
				return [
					{
						pid,
						state: stat.state,
						wchan: parseWchan(this.#proc.file?.(pid, 'wchan') ?? null),
						cpuPercent,
					} satisfies ProcessWait,
				];
			});
			waits.set(rank.pid, {wchan, workers});
		}
		// Only workers read this time are kept: one of a rank that computes again starts afresh when it next waits.
		this.#ticks = ticks;
		return waits;
	}
}

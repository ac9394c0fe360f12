import {readFileSync, statSync} from 'node:fs';
import {judgeGpuUnseen, pidLookOf, type TableMemo} from '../core/gpu-unseen.js';
import type {GpuMemoryUnseen} from '../core/memory-types.js';
import type {GpuProcessTable, GpuReading, GpuState} from '../core/types.js';
import {type ProcReader, procReader} from './procfs.js';

// The reader of GPU memory nobody can see (core/gpu-unseen.ts judges it): whether traintop runs in a PID namespace,
// and each pid nvidia-smi lists looked up in /proc. Judged once per process table (every --gpu-process-interval),
// never per tick: a tick between two tables returns the same object, so the agent sends it as an unchanged slow part.

/**
 * The inode of the kernel's initial PID namespace: `PROC_PID_INIT_INO = 0xEFFFFFFCU` in include/linux/proc_ns.h
 * (Linux ≥ 3.8, when namespaces got their proc inodes). /proc/self/ns/pid of any process in the host's PID namespace
 * has it (4026531836, measured here); a container without `--pid=host` gets another, allocated one.
 */
export const PROC_PID_INIT_INO = 0xeffffffc;

/** Whether `nsPath` (a process's ns/pid link) names a PID namespace other than the initial one; null when unreadable. */
export function inPidNamespace(nsPath = '/proc/self/ns/pid'): boolean | null {
	try {
		return statSync(nsPath).ino !== PROC_PID_INIT_INO;
	} catch {
		return null;
	}
}

/**
 * Whether /proc hides other users' processes from this reader: `hidepid=2` (or `invisible`) on the /proc mount, and
 * traintop not root. An absent pid then says nothing about whether the process ended.
 */
export function procHidesOthers(mounts = '/proc/self/mounts', uid = process.getuid?.() ?? 0): boolean {
	if (uid === 0) return false;
	try {
		return readFileSync(mounts, 'utf8')
			.split('\n')
			.some(line => {
				const [, mountPoint, type, options] = line.split(' ');
				return type === 'proc' && mountPoint === '/proc' && /(^|,)hidepid=(2|invisible)(,|$)/.test(options ?? '');
			});
	} catch {
		return false;
	}
}

/** Device samples kept (one per --interval): a table is at most a few of them old when it arrives. */
const SAMPLES = 8;

export interface GpuUnseenReaderOptions {
	readonly proc?: ProcReader;
	/** The ns/pid link that says which PID namespace traintop is in (tests point it at another process's). */
	readonly nsPath?: string;
}

export class GpuUnseenReader {
	readonly #proc: ProcReader;
	/** Read once: a process never changes its PID namespace. */
	readonly #pidNamespace: boolean | null;
	readonly #procShowsAll: boolean;
	#judgedAt: number | null = null;
	/** The devices' last few samples: the table is judged against the one nearest its own time. */
	#samples: {at: number; gpus: readonly GpuReading[]}[] = [];
	/** What the previous table showed: nothing is said before a second table confirms it. */
	#previous: TableMemo = {unaccounted: new Map(), unseen: new Set()};
	#last: GpuMemoryUnseen | null = null;
	#lastKey = '';

	constructor(options: GpuUnseenReaderOptions = {}) {
		this.#proc = options.proc ?? procReader();
		this.#pidNamespace = inPidNamespace(options.nsPath);
		this.#procShowsAll = !procHidesOthers();
	}

	/** The judgement for the devices' state and the last process table; null while either has nothing yet. */
	read(gpu: GpuState, table: GpuProcessTable): GpuMemoryUnseen | null {
		if (gpu.status !== 'ok') return null;
		if (this.#samples.at(-1)?.at !== gpu.sampledAt)
			this.#samples = [...this.#samples.slice(-(SAMPLES - 1)), {at: gpu.sampledAt, gpus: gpu.gpus}];
		if (table.sampledAt === null) return null;
		if (table.sampledAt === this.#judgedAt) return this.#last;
		this.#judgedAt = table.sampledAt;
		const at = table.sampledAt;
		const gpus = this.#samples.reduce((best, s) => (Math.abs(s.at - at) < Math.abs(best.at - at) ? s : best)).gpus;
		const {unseen: judged, memo} = judgeGpuUnseen({
			gpus,
			previous: this.#previous,
			processes: table.processes,
			pidNamespace: this.#pidNamespace,
			procShowsAll: this.#procShowsAll,
			look: pid => pidLookOf(this.#proc.stat(pid)?.state ?? null),
		});
		this.#previous = memo;
		// The same verdict as last time is the same object: views and the agent stream see no change.
		const key = JSON.stringify(judged);
		if (key !== this.#lastKey || this.#last === null) {
			this.#last = judged;
			this.#lastKey = key;
		}
		return this.#last;
	}
}

import type {GpuMemoryUnseen, GpuUnseen, UnseenGpuProcess, UnseenReason} from './memory-types.js';
import type {GpuProcess, GpuReading} from './types.js';

// GPU memory that no process visible here accounts for: per GPU, `memory.used` less what `--query-compute-apps` lists
// for it, and each listed process that is not a live, visible process here. Pure: the reader
// (system/gpu-unseen.ts) looks the pids up in /proc and says whether traintop is in a PID namespace.

const MIB = 1024 ** 2;

/**
 * Unaccounted memory below this is the driver's own bookkeeping, not a process: what the recordings show
 * (test/fixtures/nvidia-smi, and the H200 recordings of 2026-11-28):
 * - an idle GPU with no process reports `memory.used` 0 MiB on drivers that report `memory.reserved` apart
 *   (H100 590.48.01, H200 580.159.04), 59 MiB with MIG enabled (H100 590.48.01);
 * - a busy GPU whose every process is listed: 20 MiB more than its 3 processes (H100), 26 MiB more than its 4 (H200),
 *   73 MiB more than its 3 with MIG (H100);
 * - the smallest real holder recorded: an NCCL job's single rank, 883 MiB while it started, 1188 MiB running (H200).
 * 256 MiB is 3.5 × the largest bookkeeping seen and under a third of the smallest process, so a CUDA context held in
 * another container shows while the driver's own share does not. A display's graphics contexts (Xorg) are not
 * compute apps either: they show here too, worded as memory held by no listed process, never as a namespace.
 */
export const UNACCOUNTED_TOLERANCE_BYTES = 256 * MIB;

/** What /proc says of a listed pid: not there, a zombie, in uninterruptible sleep, or any other (live) state. */
export type PidLook = 'absent' | 'zombie' | 'd-state' | 'live';

/** /proc/PID/stat's state letter (null: no stat) as a PidLook. `X` (dead) is the last moment of a process: absent. */
export function pidLookOf(state: string | null): PidLook {
	if (state === null || state === 'X' || state === 'x') return 'absent';
	if (state === 'Z') return 'zombie';
	if (state === 'D') return 'd-state';
	return 'live';
}

/**
 * Why a listed pid is not a live process here; null when it is one. An absent pid is `gone` only where traintop
 * sees the host's PID namespace and /proc shows every process of it (`seesAll`); otherwise (a PID namespace, one it
 * cannot tell, or hidepid) it is `not-visible`, the one thing known: it is not visible here.
 */
export function unseenReason(look: PidLook, seesAll: boolean): UnseenReason | null {
	switch (look) {
		case 'absent':
			return seesAll ? 'gone' : 'not-visible';
		case 'zombie':
			return 'zombie';
		case 'd-state':
			return 'd-state';
		case 'live':
			return null;
	}
}

export interface UnseenInput {
	readonly gpus: readonly GpuReading[];
	readonly processes: readonly GpuProcess[];
	/** traintop is in a PID namespace other than the initial one; null when that could not be read. */
	readonly pidNamespace: boolean | null;
	/**
	 * Every process of this PID namespace has its /proc entry here: false where /proc hides other users' processes
	 * (hidepid) from a reader that is not root. With `pidNamespace` false, an absent pid has ended.
	 */
	readonly procShowsAll: boolean;
	readonly look: (pid: number) => PidLook;
	/**
	 * What the previous table showed (the last judgement's `memo`): what is said must hold at two tables in a row,
	 * so memory a job allocated between nvidia-smi's two reads (the devices' and its processes', a table apart) is
	 * not blamed on nobody, and a rank that ends between nvidia-smi's read and /proc's is not called gone. Absent:
	 * no such confirmation (each table judged alone).
	 */
	readonly previous?: TableMemo;
}

/** One GPU's listed processes: by uuid, or all of them on the only GPU when the driver gave no uuid. */
function listedOn(gpu: GpuReading, input: Pick<UnseenInput, 'gpus' | 'processes'>): GpuProcess[] {
	return input.processes.filter(p =>
		p.gpuUuid === null ? input.gpus.length === 1 : gpu.uuid !== null && p.gpuUuid === gpu.uuid,
	);
}

function unaccountedOf(gpu: GpuReading, listed: readonly GpuProcess[]): number | null {
	if (gpu.memoryUsedBytes === null) return null;
	let held = 0;
	for (const p of listed) {
		if (p.usedBytes === null) return null; // Windows WDDM, vGPU guests: the processes' share is unknown
		held += p.usedBytes;
	}
	return Math.max(0, gpu.memoryUsedBytes - held);
}

/** What one table showed, before any confirmation: each GPU's unaccounted bytes, and each process not live here. */
export interface TableMemo {
	readonly unaccounted: ReadonlyMap<number, number | null>;
	/** `index:pid:reason`. */
	readonly unseen: ReadonlySet<string>;
}

/** The smaller of now and the previous table (a GPU it lacks: not confirmed yet); unknown stays unknown. */
function confirmed(now: number | null, index: number, previous: TableMemo | undefined): number | null {
	if (now === null || previous === undefined) return now;
	return Math.min(now, previous.unaccounted.get(index) ?? 0);
}

export function judgeGpuUnseen(input: UnseenInput): {unseen: GpuMemoryUnseen; memo: TableMemo} {
	const seesAll = input.pidNamespace === false && input.procShowsAll;
	const looks = new Map<number, PidLook>();
	const lookOnce = (pid: number): PidLook => {
		let look = looks.get(pid);
		if (look === undefined) {
			look = input.look(pid);
			looks.set(pid, look);
		}
		return look;
	};
	const memo = {unaccounted: new Map<number, number | null>(), unseen: new Set<string>()};
	const gpus: GpuUnseen[] = [];
	for (const gpu of input.gpus) {
		const listed = listedOn(gpu, input);
		const processes: UnseenGpuProcess[] = [];
		for (const p of listed) {
			const reason = unseenReason(lookOnce(p.pid), seesAll);
			if (reason === null) continue;
			const key = `${gpu.index}:${p.pid}:${reason}`;
			memo.unseen.add(key);
			if (input.previous === undefined || input.previous.unseen.has(key))
				processes.push({pid: p.pid, usedBytes: p.usedBytes, reason});
		}
		const raw = unaccountedOf(gpu, listed);
		memo.unaccounted.set(gpu.index, raw);
		const unaccountedBytes = confirmed(raw, gpu.index, input.previous);
		if (processes.length > 0 || (unaccountedBytes ?? 0) > UNACCOUNTED_TOLERANCE_BYTES)
			gpus.push({index: gpu.index, uuid: gpu.uuid, unaccountedBytes, processes});
	}
	return {unseen: {pidNamespace: input.pidNamespace, gpus}, memo};
}

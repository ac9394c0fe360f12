// The pure judgement of GPU memory nobody can see (core/gpu-unseen.ts): what an absent pid means in and out of a PID
// namespace, zombies and D-state processes, and the tolerance against the recorded figures it is justified by.

import {describe, expect, it} from 'vitest';
import {
	judgeGpuUnseen,
	type PidLook,
	type TableMemo,
	pidLookOf,
	UNACCOUNTED_TOLERANCE_BYTES,
	unseenReason,
	type UnseenInput,
} from '../../src/core/gpu-unseen.js';
import type {GpuProcess, GpuReading} from '../../src/core/types.js';
import {gpuUnseenLines} from '../../src/format/gpu-unseen.js';

const MIB = 1024 ** 2;
const UUID = 'GPU-5a3a5fb5-4612-cbe1-12cd-a299a7bb159b';

function gpu(usedMiB: number | null, index = 0, uuid: string | null = UUID): GpuReading {
	return {
		index,
		uuid,
		name: 'NVIDIA H200',
		memoryTotalBytes: 143771 * MIB,
		memoryUsedBytes: usedMiB === null ? null : usedMiB * MIB,
		memoryPercent: null,
		utilizationPercent: 0,
	};
}

const row = (pid: number, usedMiB: number | null, uuid: string | null = UUID): GpuProcess => ({
	pid,
	gpuUuid: uuid,
	usedBytes: usedMiB === null ? null : usedMiB * MIB,
});

const judgeOnce = (input: UnseenInput) => judgeGpuUnseen(input).unseen;

function judge(over: Partial<UnseenInput> & {looks?: Record<number, PidLook>}) {
	const looks = over.looks ?? {};
	return judgeOnce({
		gpus: [gpu(0)],
		processes: [],
		pidNamespace: false,
		procShowsAll: true,
		look: pid => looks[pid] ?? 'live',
		...over,
	});
}

describe('what a listed pid is', () => {
	it('reads the state letter of /proc/PID/stat', () => {
		expect(pidLookOf(null)).toBe('absent');
		expect(pidLookOf('X')).toBe('absent');
		expect(pidLookOf('Z')).toBe('zombie');
		expect(pidLookOf('D')).toBe('d-state');
		for (const state of ['R', 'S', 'T', 't', 'I']) expect(pidLookOf(state)).toBe('live');
	});

	it('an absent pid is gone only where traintop sees the whole host namespace; else not visible here', () => {
		expect(unseenReason('absent', true)).toBe('gone');
		expect(unseenReason('absent', false)).toBe('not-visible');
		expect(unseenReason('zombie', true)).toBe('zombie');
		expect(unseenReason('d-state', false)).toBe('d-state');
		expect(unseenReason('live', true)).toBeNull();
		// In a namespace, unknown whether in one, or behind hidepid: never "gone".
		for (const over of [{pidNamespace: true}, {pidNamespace: null}, {pidNamespace: false, procShowsAll: false}]) {
			const judged = judge({gpus: [gpu(1188)], processes: [row(513, 1188)], looks: {513: 'absent'}, ...over});
			expect(judged.gpus[0]?.processes).toEqual([{pid: 513, usedBytes: 1188 * MIB, reason: 'not-visible'}]);
		}
		const host = judge({gpus: [gpu(1188)], processes: [row(513, 1188)], looks: {513: 'absent'}});
		expect(host.gpus[0]?.processes[0]?.reason).toBe('gone');
	});

	it('a D-state process still listed is named, and a live one is not', () => {
		const judged = judge({
			gpus: [gpu(2000)],
			processes: [row(10, 1000), row(11, 1000)],
			looks: {10: 'd-state', 11: 'live'},
		});
		expect(gpuUnseenLines(judged)).toEqual(['pid 10 (in D state) still holds 1000 MiB on GPU0']);
	});
});

describe('memory no listed process holds, against the recorded figures', () => {
	it('the PID-namespace recording: 1188 MiB and no process listed', () => {
		const judged = judge({gpus: [gpu(1188)], processes: [], pidNamespace: true});
		expect(judged.gpus).toEqual([{index: 0, uuid: UUID, unaccountedBytes: 1188 * MIB, processes: []}]);
		expect(gpuUnseenLines(judged)).toEqual(['1.2 GiB on GPU0 held by processes not visible here (PID namespace)']);
		expect(gpuUnseenLines({...judged, pidNamespace: false})).toEqual(['1.2 GiB on GPU0 held by no listed process']);
		expect(gpuUnseenLines({...judged, pidNamespace: null})).toEqual([
			'1.2 GiB on GPU0 held by processes not visible here (PID namespace unknown)',
		]);
	});

	it('the drivers own bookkeeping stays under the tolerance: nothing is said', () => {
		// test/fixtures/nvidia-smi captures and the H200 recordings: used vs the listed processes' sum.
		const recorded = [
			{used: 0, listed: []}, // H100 590.48.01 idle, H200 580.159 idle
			{used: 59, listed: []}, // H100 MIG idle
			{used: 19818, listed: [2566, 1542, 15690]}, // H100 load: 20 MiB more
			{used: 11125, listed: [2296, 1272, 7484]}, // H100 MIG load: 73 MiB more
			{used: 45178, listed: [982, 41942, 1422, 806]}, // H200 busy: 26 MiB more
		];
		for (const {used, listed} of recorded) {
			const judged = judge({gpus: [gpu(used)], processes: listed.map((m, i) => row(100 + i, m)), pidNamespace: true});
			expect(judged.gpus).toEqual([]);
			expect(used - listed.reduce((a, b) => a + b, 0)).toBeLessThan(UNACCOUNTED_TOLERANCE_BYTES / MIB / 3);
		}
		// The smallest real holder recorded (an NCCL rank starting: 883 MiB) is well above it.
		expect(883 * MIB).toBeGreaterThan(3 * UNACCOUNTED_TOLERANCE_BYTES);
	});

	it('unknown stays unknown: memory.used N/A, or a process whose memory the driver cannot attribute (WDDM)', () => {
		const wddm = judge({gpus: [gpu(702)], processes: [row(12444, null), row(2056, null)], looks: {2056: 'zombie'}});
		expect(wddm.gpus).toEqual([
			{index: 0, uuid: UUID, unaccountedBytes: null, processes: [{pid: 2056, usedBytes: null, reason: 'zombie'}]},
		]);
		expect(gpuUnseenLines(wddm)).toEqual(['pid 2056 (zombie, not reaped) is still listed on GPU0']);
		expect(judge({gpus: [gpu(null)], processes: []}).gpus).toEqual([]);
	});

	it('each GPU by its uuid: a process on GPU3 does not account for GPU0', () => {
		const other = 'GPU-other';
		const judged = judge({
			gpus: [gpu(8192, 0), gpu(8192, 3, other)],
			processes: [row(5521, 8192, other)],
			looks: {5521: 'absent'},
		});
		expect(gpuUnseenLines(judged)).toEqual([
			'8.0 GiB on GPU0 held by no listed process',
			'pid 5521 (gone) still holds 8.0 GiB on GPU3',
		]);
	});
});

describe('confirmed over two process tables', () => {
	const base: UnseenInput = {gpus: [], processes: [], pidNamespace: false, procShowsAll: true, look: () => 'live'};
	const table = (usedMiB: number, rows: GpuProcess[], looks: Record<number, PidLook>, previous?: TableMemo) =>
		judgeGpuUnseen({...base, gpus: [gpu(usedMiB)], processes: rows, look: pid => looks[pid] ?? 'live', previous});

	it('memory a job allocated between the two reads is not blamed on nobody; what stays is, at its smaller figure', () => {
		// A job ramping up: 2 GiB more than its listed 10 GiB at one table, all of it listed at the next.
		const first = table(12288, [row(7, 10240)], {}, {unaccounted: new Map(), unseen: new Set()});
		expect(first.unseen.gpus).toEqual([]);
		const second = table(20480, [row(7, 20480)], {}, first.memo);
		expect(second.unseen.gpus).toEqual([]);
		// Held by a process in another container: 1188 MiB, then 1200 MiB; said from the second table, at 1188.
		const a = table(1188, [], {}, second.memo);
		expect(a.unseen.gpus).toEqual([]);
		const b = table(1200, [], {}, a.memo);
		expect(b.unseen.gpus[0]?.unaccountedBytes).toBe(1188 * MIB);
	});

	it('a rank that ended between nvidia-smi and /proc is not called gone; one still listed a table later is', () => {
		const none = {unaccounted: new Map([[0, 0]]), unseen: new Set<string>()};
		const first = table(8192, [row(5521, 8192)], {5521: 'absent'}, none);
		expect(first.unseen.gpus).toEqual([]);
		const second = table(8192, [row(5521, 8192)], {5521: 'absent'}, first.memo);
		expect(gpuUnseenLines(second.unseen)).toEqual(['pid 5521 (gone) still holds 8.0 GiB on GPU0']);
	});
});

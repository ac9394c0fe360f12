import {describe, expect, it} from 'vitest';
import type {GpuProcessTable, GpuState} from '../../src/core/types.js';
import {rankGpuLines} from '../../src/ui/rank-gpu-lines.js';
import {gpu} from '../helpers/snapshots.js';

const GIB = 1024 ** 3;
const gpus: GpuState = {status: 'ok', gpus: [gpu(0, 50), gpu(1, 25), gpu(2, 10)], sampledAt: 1, warning: null};
const table = (processes: GpuProcessTable['processes']): GpuProcessTable => ({processes, sampledAt: 1, error: null});

describe('rankGpuLines', () => {
	it("sums the rank's and its workers' memory per device, with the device's total use; others' processes left out", () => {
		const lines = rankGpuLines(
			[100, 101],
			table([
				{pid: 100, gpuUuid: 'GPU-1', usedBytes: 12 * GIB},
				{pid: 101, gpuUuid: 'GPU-1', usedBytes: 2 * GIB},
				// A stray context on GPU0, the classic every-rank-on-cuda:0 mistake.
				{pid: 100, gpuUuid: 'GPU-0', usedBytes: 0.5 * GIB},
				{pid: 999, gpuUuid: 'GPU-2', usedBytes: 8 * GIB},
			]),
			gpus,
		);
		expect(lines).toEqual([
			'GPU memory',
			'  GPU0  512 MiB of 40.0 GiB used on it (1 process)',
			'  GPU1  14.0 GiB of 20.0 GiB used on it (2 processes)',
		]);
	});

	it('says why when there is nothing per device: no GPU, no table yet, no process on a GPU, memory not attributed', () => {
		expect(rankGpuLines([1], table([]), {status: 'absent', reason: 'no nvidia-smi'})).toEqual([
			'GPU memory',
			'  no GPU reading',
		]);
		expect(rankGpuLines([1], {processes: [], sampledAt: null, error: null}, gpus)[1]).toBe(
			'  per-process GPU memory not read yet',
		);
		expect(rankGpuLines([1], {processes: [], sampledAt: null, error: 'exit 6'}, gpus)[1]).toBe(
			'  per-process GPU memory unavailable: exit 6',
		);
		expect(rankGpuLines([1], table([{pid: 2, gpuUuid: 'GPU-0', usedBytes: GIB}]), gpus)[1]).toBe(
			'  none: no process of this rank is on a GPU',
		);
		expect(rankGpuLines([1], table([{pid: 1, gpuUuid: 'GPU-2', usedBytes: null}]), gpus)[1]).toMatch(
			/^ {2}GPU2 {2}unknown \(not attributed by the driver\)/,
		);
	});
});

import {describe, expect, test} from 'vitest';
import type {GpuSource, GpuState} from '../../src/core/types.js';
import {gpuStateWords} from '../../src/format/gpu-state.js';
import {formatGpuStateLine} from '../../src/headless/format.js';

// The GPU reader's state in words, once, for the memory pane and the headless lines: the reader named from the
// state's `source`, the reader's own words shown with their escapes visible.

const ok = (source?: GpuSource): GpuState => ({
	status: 'ok',
	gpus: [],
	sampledAt: 0,
	warning: 'infoROM is corrupted',
	...(source ? {source} : {}),
});

describe('gpuStateWords', () => {
	test('the reader is named from the state, not written in', () => {
		// A second backend (NVML) is only a name here: its states say it, and every view with them.
		const nvml = 'nvml' as GpuSource;
		expect(gpuStateWords({status: 'starting', source: nvml}, 0).problem).toEqual({what: 'starting nvml…', why: null});
		expect(gpuStateWords(ok(nvml), 0)).toEqual({
			problem: {what: 'no GPU reported by nvml', why: null},
			warning: 'nvml warns: infoROM is corrupted',
		});
		expect(gpuStateWords({status: 'error', message: 'x', retryAt: null, source: nvml}, 0).problem?.what).toBe(
			'nvml failed',
		);
	});

	test('a state without a source is from before backends were named: nvidia-smi', () => {
		expect(gpuStateWords({status: 'starting'}, 0).problem?.what).toBe('starting nvidia-smi…');
		expect(gpuStateWords(ok(), 0).warning).toBe('nvidia-smi warns: infoROM is corrupted');
	});

	test("the reader's words are shown, never obeyed; a retry already due is not negative", () => {
		expect(gpuStateWords({status: 'absent', reason: 'no \u001b[2J here'}, 0).problem).toEqual({
			what: 'not monitored',
			why: 'no \\e[2J here',
		});
		expect(
			gpuStateWords({status: 'error', message: 'NVML', retryAt: 1000, source: 'nvidia-smi'}, 5000).problem,
		).toEqual({what: 'nvidia-smi failed', why: 'NVML; retrying in 0 s'});
	});

	test('the headless line and the pane say the same: a sample with no device is "no GPU reported"', () => {
		const none: GpuState = {status: 'ok', gpus: [], sampledAt: 0, warning: null, source: 'nvidia-smi'};
		expect(formatGpuStateLine(none, 0)).toBe('GPU: no GPU reported by nvidia-smi');
	});
});

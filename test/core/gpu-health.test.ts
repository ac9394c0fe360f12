// A GPU's health problems and their alerts: codes and levels from the H200's recorded rows (the real parser over the
// recordings, driver 580.159.04; the variants change ONE value, see test/helpers/h200-health.ts), and the judge's
// episodes over a series of samples: raised after 2, resolved after 5 clear, never one per sample.

import {afterAll, describe, expect, test} from 'vitest';
import {gpuHealthProblems, worstHealthLevel} from '../../src/core/gpu-health.js';
import {type GpuHealth, UNKNOWN_HEALTH} from '../../src/core/gpu-health-types.js';
import {CLEAR_SAMPLES, ENTER_SAMPLES, GpuHealthJudge, RISE_WINDOW_SAMPLES} from '../../src/core/gpu-health-judge.js';
import type {GpuReading, GpuState} from '../../src/core/types.js';
import {gpuHealthLine} from '../../src/format/gpu-health.js';
import {removeTempDirs} from '../helpers/fake-nvidia-smi/harness.js';
import {h200Readings, h200Variant} from '../helpers/h200-health.js';

afterAll(removeTempDirs);

const idle = h200Readings('h200-health-idle')[0]!;
const healthy = idle.health!;

/** A series of samples of one GPU (the idle H200's reading with `health`), as the reader publishes them. */
function judgeSeries(healths: readonly GpuHealth[], reading: GpuReading = idle): string[] {
	const judge = new GpuHealthJudge();
	return healths.flatMap((health, i) => {
		const state: GpuState = {status: 'ok', gpus: [{...reading, health}], sampledAt: 1000 + i, warning: null};
		// Every sample is seen by two ticks: judged once.
		return [...judge.judge(state, 1000 + i), ...judge.judge(state, 1000 + i)].map(e => `${e.level} ${e.text}`);
	});
}

const times = (n: number, health: GpuHealth): GpuHealth[] => Array.from({length: n}, () => health);
const thermal: GpuHealth = {...healthy, throttle: ['hw_slowdown', 'hw_thermal_slowdown']};

describe('problems of one sample', () => {
	test('the idle H200: none; the busy one at its power limit: the power cap, shown and never a problem', () => {
		expect(gpuHealthProblems(healthy)).toEqual([]);
		const busy = h200Readings('h200-health-busy', 10)[0]!.health!;
		expect(busy.throttle).toEqual(['sw_power_cap']);
		const problems = gpuHealthProblems(busy);
		expect(problems).toEqual([{code: 'power-cap', level: 'ok', count: null}]);
		expect(worstHealthLevel(problems)).toBe('ok');
		expect(gpuHealthLine(problems)).toBe('power cap');
	});

	test('the recorded variants: a thermal slowdown warns, an uncorrectable ECC count is critical', () => {
		const hot = h200Readings(h200Variant('clocks_event_reasons.hw_thermal_slowdown', 'Active'), 10)[0]!.health!;
		expect(gpuHealthLine(gpuHealthProblems(hot))).toBe('thermal slowdown; power cap');
		expect(worstHealthLevel(gpuHealthProblems(hot))).toBe('warn');
		const ecc = h200Readings(h200Variant('ecc.errors.uncorrected.volatile.total', '3'), 0)[0]!.health!;
		expect(gpuHealthProblems(ecc)).toEqual([{code: 'ecc-uncorrected', level: 'critical', count: 3}]);
		expect(gpuHealthLine(gpuHealthProblems(ecc))).toBe('3 uncorrectable ECC');
	});

	test('hw_slowdown is said alone only when neither thermal nor power brake explains it; unknown is no problem', () => {
		expect(gpuHealthLine(gpuHealthProblems(thermal))).toBe('thermal slowdown');
		expect(gpuHealthLine(gpuHealthProblems({...healthy, throttle: ['hw_slowdown']}))).toBe('hardware slowdown');
		expect(gpuHealthProblems(UNKNOWN_HEALTH)).toEqual([]);
		expect(gpuHealthProblems(undefined)).toEqual([]);
	});

	test('a failed remap is critical; pending rows and pages warn; MIG on is said', () => {
		const problems = gpuHealthProblems({
			...healthy,
			remappedRowsFailure: true,
			remappedRowsPending: true,
			retiredPagesPending: true,
			migMode: 'enabled',
		});
		expect(problems.map(p => `${p.code}:${p.level}`)).toEqual([
			'remap-failure:critical',
			'remapped-rows-pending:warn',
			'retired-pages-pending:warn',
			'mig-on:ok',
		]);
		expect(gpuHealthLine(problems)).toBe('row remap failed; row remap pending; page retirement pending; MIG on');
	});
});

describe('alerts, one per episode', () => {
	test('raised after 2 samples, resolved after 5 clear ones', () => {
		expect(ENTER_SAMPLES).toBe(2);
		expect(judgeSeries([thermal])).toEqual([]);
		const series = [...times(2, thermal), ...times(CLEAR_SAMPLES - 1, healthy)];
		expect(judgeSeries(series)).toEqual(['warn GPU0 throttled: thermal slowdown']);
		expect(judgeSeries([...series, healthy])).toEqual([
			'warn GPU0 throttled: thermal slowdown',
			'ok GPU0 no longer throttled: thermal slowdown',
		]);
	});

	test('a slowdown that comes and goes every other sample is one episode, never flapping', () => {
		const flapping = Array.from({length: 40}, (_, i) => (i % 2 === 0 ? thermal : healthy));
		expect(judgeSeries([thermal, ...flapping])).toEqual(['warn GPU0 throttled: thermal slowdown']);
	});

	test('a lone sample of a slowdown between clear ones is no alert', () => {
		expect(judgeSeries([healthy, thermal, healthy, healthy, thermal, healthy])).toEqual([]);
	});

	test('the power cap and MIG are never alerted', () => {
		const capped: GpuHealth = {...healthy, throttle: ['sw_power_cap'], migMode: 'enabled'};
		expect(judgeSeries(times(20, capped))).toEqual([]);
	});

	test('uncorrectable ECC errors: critical while any since the driver loaded', () => {
		const ecc: GpuHealth = {...healthy, eccUncorrected: 3};
		expect(judgeSeries([...times(30, ecc), {...ecc, eccUncorrected: 5}])).toEqual([
			'critical GPU0: 3 uncorrectable ECC errors since the driver loaded',
		]);
		expect(judgeSeries([...times(3, {...healthy, eccUncorrected: 1}), ...times(CLEAR_SAMPLES, healthy)])).toEqual([
			'critical GPU0: 1 uncorrectable ECC error since the driver loaded',
			'ok GPU0: no uncorrectable ECC error since the driver loaded again',
		]);
	});

	test('corrected errors: a warning while rising, over when flat for the rise window', () => {
		const at = (n: number): GpuHealth => ({...healthy, eccCorrected: n});
		const rising = [at(0), at(4), at(9), ...times(RISE_WINDOW_SAMPLES + CLEAR_SAMPLES, at(9))];
		expect(judgeSeries(rising)).toEqual([
			'warn GPU0: corrected ECC errors rising (9 since the driver loaded)',
			'ok GPU0: corrected ECC errors no longer rising',
		]);
		// A steady count, however high, is not rising.
		expect(judgeSeries(times(10, at(120)))).toEqual([]);
	});

	test('each GPU on its own: a hot GPU2 beside a healthy GPU0', () => {
		const judge = new GpuHealthJudge();
		const texts: string[] = [];
		for (let i = 0; i < 3; i++) {
			const gpus = [
				{...idle, health: healthy},
				{...idle, index: 2, uuid: 'GPU-2', health: thermal},
			];
			texts.push(...judge.judge({status: 'ok', gpus, sampledAt: i, warning: null}, i).map(e => e.text));
		}
		expect(texts).toEqual(['GPU2 throttled: thermal slowdown']);
	});
});

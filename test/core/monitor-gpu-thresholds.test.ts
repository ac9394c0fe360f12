import {describe, expect, test} from 'vitest';
import {monitorOptions} from '../../src/config/thresholds.js';
import {DEFAULT_SETTINGS, type Settings} from '../../src/config/schema.js';
import {Monitor} from '../../src/core/monitor.js';
import {gpu, ScriptedSources} from '../helpers/snapshots.js';

// A GPU with a threshold of its own (--gpu-thresholds, a cluster.yaml's reserve factor) is judged against it,
// with the same warn margin and hysteresis as the global GPU rule; the other GPUs against --gpu-threshold.

const settings: Settings = {...DEFAULT_SETTINGS, gpuThresholds: new Map([['GPU-0', 60]])};

function setup() {
	const sources = new ScriptedSources();
	let now = 1_000_000;
	const monitor = new Monitor(monitorOptions(settings, sources, 'node-a'));
	const tick = async (percent: number) => {
		sources.setGpus(gpu(0, percent), gpu(1, percent));
		now += 1000;
		return monitor.tick();
	};
	return {monitor, tick, time: () => now};
}

describe('per-GPU thresholds in the Monitor', () => {
	test('the GPU named by uuid goes WARN then CRIT at its own 60 %; the other, at the same percent, stays ok under 90 %', async () => {
		const {tick} = setup();
		const levels: string[] = [];
		for (const percent of [45, 55, 62, 59, 57, 40]) {
			const {metrics} = await tick(percent);
			levels.push(`${metrics.gpu0?.level}/${metrics.gpu1?.level}`);
		}
		// Warn from 50 (10 points below 60), critical from 60; back down only 2 points under each line.
		expect(levels).toEqual(['ok/ok', 'warn/ok', 'critical/ok', 'critical/ok', 'warn/ok', 'ok/ok']);
	});

	test('each GPU carries its own threshold in the snapshot and in its alerts, which the views show', async () => {
		const {tick} = setup();
		const snapshot = await tick(62);
		expect(snapshot.metrics.gpu0).toMatchObject({value: 62, level: 'critical', threshold: 60});
		expect(snapshot.metrics.gpu1).toMatchObject({value: 62, level: 'ok', threshold: 90});
		expect(snapshot.newAlerts).toEqual([expect.objectContaining({metric: 'gpu0', to: 'critical', threshold: 60})]);
	});

	test('a GPU whose uuid nvidia-smi does not give (null) is judged by the global rule', async () => {
		const sources = new ScriptedSources();
		const monitor = new Monitor(monitorOptions(settings, sources, 'node-a'));
		sources.setGpus({...gpu(0, 62), uuid: null});
		expect((await monitor.tick()).metrics.gpu0).toMatchObject({level: 'ok', threshold: 90});
	});
});

// GPU health on the memory pane's GPU lines, from the H200's recorded rows through the real parser (driver 580.159.04;
// the variants change ONE value, see test/helpers/h200-health.ts): a problem at the end of its GPU's line, the same
// columns kept blank on the others so that every bar still lines up, and a sick GPU that does not fit named on the
// "+N more" line.

import {cleanup} from 'ink-testing-library';
import {afterAll, afterEach, describe, expect, test} from 'vitest';
import type {GpuReading, MetricStatus} from '../../../src/core/types.js';
import MemoryPane, {type Props} from '../../../src/ui/panes/MemoryPane.js';
import {removeTempDirs} from '../../helpers/fake-nvidia-smi/harness.js';
import {h200Readings, h200Variant} from '../../helpers/h200-health.js';
import {hostMemory} from '../../helpers/snapshots.js';
import {expectFits, NOW, renderOnTerminal, status} from '../fixtures.js';

afterEach(cleanup);
afterAll(removeTempDirs);

const healthy = h200Readings('h200-health-idle')[0]!;
const hot = h200Readings(h200Variant('clocks_event_reasons.hw_thermal_slowdown', 'Active'), 10)[0]!;
const ecc = h200Readings(h200Variant('ecc.errors.uncorrected.volatile.total', '3'), 0)[0]!;

const asGpu = (reading: GpuReading, index: number): GpuReading => ({...reading, index, uuid: `GPU-${index}`});

function pane(gpus: GpuReading[], width: number, extra: Partial<Props> = {}): string[] {
	const metrics: Record<string, MetricStatus> = {ram: status(20, 'ok', 85), swap: status(0, 'ok', 50)};
	for (const g of gpus) metrics[`gpu${g.index}`] = status(g.memoryPercent ?? 0, 'ok', 90);
	const props: Props = {
		host: 'h200',
		memory: hostMemory(20, 0),
		memoryError: null,
		gpu: {status: 'ok', gpus, sampledAt: NOW, warning: null},
		metrics,
		now: NOW,
		width,
		height: 3 + gpus.length,
		...extra,
	};
	const {lastFrame} = renderOnTerminal(<MemoryPane {...props} />, width);
	return expectFits(lastFrame(), width, props.height);
}

const barEnd = (line: string): number => line.lastIndexOf('┊');

describe('GPU health on the GPU lines', () => {
	test('a healthy pane has no health column', () => {
		const lines = pane([asGpu(healthy, 0), asGpu(healthy, 1)], 160);
		expect(lines.find(l => l.startsWith('GPU1'))).toMatch(/35°C +77\/700 W$/);
		expect(lines.join('\n')).not.toMatch(/slowdown|ECC/);
	});

	test('each GPU its own words, the bars still lined up, at 160 and 90 columns', () => {
		for (const width of [160, 90]) {
			const lines = pane([asGpu(healthy, 0), asGpu(hot, 1), asGpu(ecc, 2)], width);
			const [g0, g1, g2] = ['GPU0', 'GPU1', 'GPU2'].map(label => lines.find(l => l.startsWith(label)) ?? '') as [
				string,
				string,
				string,
			];
			expect(g0).not.toMatch(/slowdown|ECC/);
			expect(g1).toMatch(/ {2}thermal slowdown; power cap$/);
			expect(g2).toMatch(/ {2}3 uncorrectable ECC$/);
			expect(new Set([g0, g1, g2].map(barEnd)).size).toBe(1);
		}
	});

	test('two GPUs to a line: each gauge keeps its own words', () => {
		const lines = pane([asGpu(hot, 0), asGpu(ecc, 1)], 200, {gpuColumns: 2, height: 4});
		const line = lines.find(l => l.startsWith('GPU0'))!;
		expect(line).toMatch(/GPU0 .* thermal slowdown.* GPU1 .* 3 uncorrectable ECC/);
	});

	test('a sick GPU that does not fit is named on the "+N more" line', () => {
		const gpus = [0, 1, 2, 3].map(i => asGpu(i === 3 ? ecc : healthy, i));
		const lines = pane(gpus, 160, {height: 5});
		expect(lines.at(-1)).toBe('+3 more GPUs; highest GPU1 0.0%; GPU3 3 uncorrectable ECC');
	});
});

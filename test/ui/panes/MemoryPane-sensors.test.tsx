// The GPU lines of the memory pane with their sensors, from recorded nvidia-smi rows run through the real parser:
// utilisation, temperature and power where the driver gave them, blanks where it said N/A, and RAM and swap keeping
// the same columns blank so that every bar of the pane still lines up.

import {afterEach, describe, expect, test} from 'vitest';
import {cleanup} from 'ink-testing-library';
import MemoryPane, {type Props} from '../../../src/ui/panes/MemoryPane.js';
import type {GpuReading, GpuState, MetricStatus} from '../../../src/core/types.js';
import {GPU_QUERY_FIELDS, parseGpuLine} from '../../../src/system/nvidia-smi-parse.js';
import {projectTable} from '../../helpers/fake-nvidia-smi/project.mjs';
import {loadCatalogue, loadScenario} from '../../helpers/fake-nvidia-smi/scenario.mjs';
import {gpu, hostMemory} from '../../helpers/snapshots.js';
import {expectFits, frameLines, NOW, renderOnTerminal, status} from '../fixtures.js';

afterEach(cleanup);

const catalogue = loadCatalogue();

/** The readings traintop gets from a recording's frame (0-based), through the fake's projection and our parser. */
function recorded(scenario: string, frame = 0): GpuReading[] {
	const loaded = loadScenario(scenario);
	if (loaded.kind !== 'data') throw new Error(`${scenario} is not a data scenario`);
	const table = loaded.frames['query-gpu'][frame]!;
	const lines = projectTable(table, GPU_QUERY_FIELDS, {
		query: 'query-gpu',
		catalogue,
		noheader: true,
		nounits: true,
		fillMissing: 'known',
	});
	return lines.map(line => {
		const parsed = parseGpuLine(line);
		if (parsed.kind !== 'row') throw new Error(`not a row: ${line}`);
		return parsed.row.reading;
	});
}

function ok(gpus: GpuReading[]): GpuState {
	return {status: 'ok', gpus, sampledAt: NOW, warning: null};
}

function metricsFor(gpus: readonly GpuReading[]): Record<string, MetricStatus> {
	const metrics: Record<string, MetricStatus> = {ram: status(78, 'warn', 85, 80.5), swap: status(10, 'ok', 50)};
	for (const g of gpus) metrics[`gpu${g.index}`] = status(g.memoryPercent ?? 0, 'ok', 90);
	return metrics;
}

function pane(gpus: GpuReading[], width: number, extra: Partial<Props> = {}): string[] {
	const props: Props = {
		host: 'node1',
		memory: hostMemory(78, 10),
		memoryError: null,
		gpu: ok(gpus),
		metrics: metricsFor(gpus),
		now: NOW,
		width,
		height: 4 + gpus.length,
		sparklineWidth: width >= 100 ? Math.min(32, Math.floor(width / 6)) : 0,
		...extra,
	};
	const {lastFrame} = renderOnTerminal(<MemoryPane {...props} />, width);
	return expectFits(lastFrame(), width, props.height);
}

function lineOf(lines: string[], label: string): string {
	const found = lines.find(l => l.startsWith(label));
	if (found === undefined) throw new Error(`no ${label} line in\n${lines.join('\n')}`);
	return found;
}

const H100 = 'linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01';

describe('GPU sensors in the memory pane, from recorded rows', () => {
	test('the H100 under load: util, temperature and power at 120 and 200 columns', () => {
		for (const width of [120, 200]) {
			const line = lineOf(pane(recorded(H100, 1), width), 'GPU0');
			expect(line).toMatch(/24\.3% ok .* util 100% {2}59°C 632\/700 W$/);
		}
	});

	test('80 columns keeps the utilisation only; 60 columns none of them, whole words or nothing', () => {
		expect(lineOf(pane(recorded(H100, 1), 80), 'GPU0')).toMatch(/GiB to 90% +util 100%$/);
		const narrow = lineOf(pane(recorded(H100, 1), 60), 'GPU0');
		expect(narrow).toMatch(/GiB to 90%$/);
		expect(narrow).not.toMatch(/util|°C| W/);
	});

	test('MIG: utilization [N/A] is a blank column, never 0, while temperature and power show', () => {
		const line = lineOf(pane(recorded('linux-x86_64__nvidia-h100-mig__590.48.01', 1), 200), 'GPU0');
		expect(line).toMatch(/ {2}53°C 434\/700 W$/);
		expect(line).not.toContain('util');
	});

	test('8 TITAN X (2016 recording without power): util and temperature, no power column', () => {
		const lines = pane(recorded('issue__gpustat-5-titanx-8gpu'), 200);
		expect(lineOf(lines, 'GPU1')).toMatch(/util {2}86% {2}54°C$/);
		expect(lineOf(lines, 'GPU0')).toMatch(/util {3}0% {2}25°C$/);
		expect(lines.join('\n')).not.toMatch(/ W$|N\/A/m);
	});

	test('[Not Supported] everywhere (GTX 770): only the temperature it reported', () => {
		const line = lineOf(pane(recorded('issue__megaminer-235-gtx770'), 160), 'GPU0');
		expect(line).toMatch(/ 52°C$/);
		expect(line).not.toMatch(/util|\d W/);
	});

	test('RAM and swap keep the sensor columns blank: every bar of the pane lines up', () => {
		for (const width of [80, 120, 200]) {
			const lines = pane(recorded(H100, 1), width);
			const valueColumn = (label: string) => lineOf(lines, label).search(/\d+\.\d% /);
			expect(valueColumn('RAM ')).toBe(valueColumn('GPU0'));
			expect(valueColumn('swap')).toBe(valueColumn('GPU0'));
			expect(lineOf(lines, 'RAM ')).not.toMatch(/util|°C/);
		}
	});

	test('no GPU with a sensor value: no sensor columns, the pane as before (GiB used/total at 160)', () => {
		const bare: GpuReading = {...gpu(0, 40), utilizationPercent: null};
		const lines = pane([bare], 160);
		expect(lineOf(lines, 'GPU0')).toContain('32.0 GiB/80.0 GiB');
		expect(lineOf(lines, 'RAM ')).toContain('49.9 GiB/64.0 GiB');
		expect(lines.join('\n')).not.toMatch(/util|°C/);
	});

	test('GPUs packed several a line: RAM does not keep their columns', () => {
		const gpus = recorded('issue__gpustat-5-titanx-8gpu');
		const lines = pane(gpus, 200, {gpuColumns: 2, height: 7});
		expect(lineOf(lines, 'RAM ')).toContain('49.9 GiB/64.0 GiB');
		expect(frameLines(lines.join('\n')).some(line => /GPU0 .*GPU1 /.test(line))).toBe(true);
	});
});

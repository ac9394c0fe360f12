// Pure parser tests, on lines taken from the copied fixtures (verbatim, or projected onto our field list by the
// same code the fake nvidia-smi uses).

import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {
	BYTES_PER_MIB,
	COMPUTE_APPS_FIELDS,
	GPU_QUERY_FIELDS,
	GpuSampleAssembler,
	computeAppsArgs,
	firstMeaningfulLine,
	gpuLoopArgs,
	isUnavailable,
	isWarningLine,
	memoryPercent,
	parseComputeAppsLine,
	parseComputeAppsOutput,
	parseGpuLine,
	parseNumber,
	splitCsvLine,
	type GpuRow,
} from '../../src/system/nvidia-smi-parse.js';
import {projectTable} from '../helpers/fake-nvidia-smi/project.mjs';
import {
	DEFAULT_FIXTURES_ROOT,
	loadCatalogue,
	loadScenario,
	type QueryKind,
} from '../helpers/fake-nvidia-smi/scenario.mjs';

const MiB = BYTES_PER_MIB;
const H100 = 'linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01';
const H100_UUID = 'GPU-00000000-0000-0000-0000-000000000000';
const catalogue = loadCatalogue();

/** The lines nvidia-smi would print for our own query, from frame `frame` (0-based) of a recording. */
function ourLines(scenario: string, query: QueryKind, frame = 0, fillMissing: boolean | 'known' = 'known'): string[] {
	const loaded = loadScenario(scenario);
	if (loaded.kind !== 'data') throw new Error(`${scenario} is not a data scenario`);
	const table = loaded.frames[query][frame];
	if (table === undefined) throw new Error(`${scenario} has no frame ${frame} for ${query}`);
	const fields = query === 'query-gpu' ? GPU_QUERY_FIELDS : COMPUTE_APPS_FIELDS;
	return projectTable(table, fields, {query, catalogue, noheader: true, nounits: true, fillMissing});
}

function fixture(relative: string): string {
	return readFileSync(join(DEFAULT_FIXTURES_ROOT, relative), 'utf8');
}

function rowOf(line: string): GpuRow {
	const parsed = parseGpuLine(line);
	if (parsed.kind !== 'row') throw new Error(`not a row: ${line}`);
	return parsed.row;
}

/** A verbatim line from a capture section (`# <phase> :: <label>`), by its position among the section's data lines. */
function captureLine(file: string, phase: string, label: string, position: number): string {
	const lines = fixture(`captures/${file}.txt`).split('\n');
	const start = lines.indexOf(`# ${phase} :: ${label}`);
	const data = lines.slice(start + 1).filter(line => !line.startsWith('#'));
	const line = data[position];
	if (start < 0 || line === undefined) throw new Error(`no line ${position} in ${phase} :: ${label}`);
	return line;
}

describe('the queries', () => {
	it('asks the loop for exactly the device fields and the sensors, noheader and nounits, at the interval in ms', () => {
		expect(gpuLoopArgs(1000)).toEqual([
			'--query-gpu=timestamp,count,index,uuid,name,memory.total,memory.used,utilization.gpu,temperature.gpu,power.draw,power.limit',
			'--format=csv,noheader,nounits',
			'-lms',
			'1000',
		]);
		expect(gpuLoopArgs(99.6)[3]).toBe('100');
	});

	it('never asks compute-apps for process_name (it may contain ", ")', () => {
		expect(computeAppsArgs()).toEqual([
			'--query-compute-apps=gpu_uuid,pid,used_gpu_memory',
			'--format=csv,noheader,nounits',
		]);
		expect(COMPUTE_APPS_FIELDS).not.toContain('process_name');
	});
});

describe('parseGpuLine on recorded devices', () => {
	it('reads the H100 idle and load frames, memory in bytes and percent of total', () => {
		const [idleLine] = ourLines(H100, 'query-gpu', 0);
		const [loadLine] = ourLines(H100, 'query-gpu', 1);
		expect(rowOf(idleLine!)).toEqual({
			timestamp: '2026/07/14 08:12:38.696',
			count: 1,
			reading: {
				index: 0,
				uuid: H100_UUID,
				name: 'NVIDIA H100 80GB HBM3',
				memoryTotalBytes: 81559 * MiB,
				memoryUsedBytes: 0,
				memoryPercent: 0,
				utilizationPercent: 0,
				temperatureC: 41,
				powerDrawW: 69.85,
				powerLimitW: 700,
			},
		});
		const load = rowOf(loadLine!).reading;
		expect(load.memoryUsedBytes).toBe(19818 * MiB);
		expect(load.memoryPercent).toBeCloseTo((19818 / 81559) * 100, 10);
		expect(load.utilizationPercent).toBe(100);
	});

	it('maps MIG mode utilization [N/A] to null, keeping memory', () => {
		const reading = rowOf(ourLines('linux-x86_64__nvidia-h100-mig__590.48.01', 'query-gpu', 1)[0]!).reading;
		expect(reading.utilizationPercent).toBeNull();
		expect(reading.memoryUsedBytes).toBe(11125 * MiB);
		expect(reading.memoryPercent).toBeCloseTo((11125 / 81559) * 100, 10);
	});

	it('maps GB10 unified memory [N/A] to null memory and null percent, never 0 or NaN', () => {
		const reading = rowOf(ourLines('issue__gb10-unified-memory', 'query-gpu', 0, true)[0]!).reading;
		expect(reading).toMatchObject({
			memoryTotalBytes: null,
			memoryUsedBytes: null,
			memoryPercent: null,
			utilizationPercent: 0,
		});
		expect(reading.uuid).toBeNull();
	});

	it('reads all 8 GPUs of the gpustat#5 box', () => {
		const rows = ourLines('issue__gpustat-5-titanx-8gpu', 'query-gpu').map(rowOf);
		expect(rows.map(row => row.reading.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
		expect(rows.every(row => row.count === 8)).toBe(true);
		expect(rows[1]!.reading).toMatchObject({
			uuid: 'GPU-86fe97db-bf54-a056-4e8d-9b07e1a298e7',
			name: 'GeForce GTX TITAN X',
			memoryUsedBytes: 10032 * MiB,
			memoryTotalBytes: 12206 * MiB,
			utilizationPercent: 86,
		});
	});

	it('accepts \\r\\n line ends', () => {
		const line = ourLines(H100, 'query-gpu', 1)[0]!;
		expect(rowOf(`${line}\r`)).toEqual(rowOf(line));
	});

	it('returns every line that is not a row as text: headers, other tables, WARNING, error text, fragments', () => {
		const notRows = [
			// Our own header, as `csv` without noheader would print it.
			'timestamp, count, index, uuid, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%], temperature.gpu, power.draw [W], power.limit [W]',
			// The compute-apps header and a compute-apps row from the H100 capture.
			captureLine(H100, 'load', 'query-compute-apps (per-process)', 0),
			captureLine(H100, 'load', 'query-compute-apps (per-process)', 1),
			fixture('errors/inforom-warning.txt').trimEnd(),
			...fixture('errors/version-mismatch.txt').trimEnd().split('\n'),
			fixture('errors/driver-not-loaded.txt').trimEnd(),
			fixture('errors/gpu-handle-unknown.txt').trimEnd(),
			// Half a row, as a killed writer leaves it.
			ourLines(H100, 'query-gpu', 1)[0]!.slice(0, 60),
		];
		for (const line of notRows) expect(parseGpuLine(line)).toEqual({kind: 'text', text: line});
		expect(parseGpuLine('')).toEqual({kind: 'blank'});
		expect(parseGpuLine('\r')).toEqual({kind: 'blank'});
	});

	it('rejects a row whose count or index is not an integer, or whose number is neither a number nor a marker', () => {
		const good = ourLines(H100, 'query-gpu', 1)[0]!;
		const cells = splitCsvLine(good);
		const withCell = (at: number, value: string): string =>
			cells.map((cell, i) => (i === at ? value : cell)).join(', ');
		expect(parseGpuLine(withCell(1, '1.5')).kind).toBe('text');
		expect(parseGpuLine(withCell(2, '[N/A]')).kind).toBe('text');
		expect(parseGpuLine(withCell(6, 'lots')).kind).toBe('text');
		expect(parseGpuLine(withCell(6, '[Unknown Error]')).kind).toBe('row');
	});
});

describe('markers and numbers', () => {
	it('treats every marker seen in the recordings as unavailable', () => {
		const recordedCells = [
			...splitCsvLine(JSON.parse(fixture('csv/issue__megaminer-235-gtx770.json')).files['query-gpu.csv']),
			...splitCsvLine(JSON.parse(fixture('csv/issue__i3pystatus-776-not-supported.json')).files['query-gpu.csv']),
			...splitCsvLine(JSON.parse(fixture('csv/issue__gpu-utils-83-rtx2080-440.json')).files['query-gpu.csv']),
			...splitCsvLine(captureLine(H100, 'idle', 'query-gpu (csv, what the exporter parses)', 1)),
		];
		const markers = new Set(recordedCells.filter(cell => /N\/A|Not Supported|deprecated/.test(cell)));
		expect([...markers].sort()).toEqual([
			'N/A',
			'[N/A]',
			'[Not Supported]',
			'[Requested functionality has been deprecated]',
		]);
		for (const cell of [...markers, '[Unknown Error]', '[Insufficient Permissions]', '[Something new]']) {
			expect(isUnavailable(cell)).toBe(true);
			expect(parseNumber(cell)).toBeNull();
		}
	});

	it('reads numbers, tolerates a leftover unit, and refuses anything else', () => {
		expect(parseNumber('81559')).toBe(81559);
		expect(parseNumber('11.17')).toBe(11.17);
		// Megaminer#235: units printed on supported values.
		expect(parseNumber('52 %')).toBe(52);
		expect(parseNumber('2566 MiB')).toBe(2566);
		expect(parseNumber('P0')).toBeUndefined();
		expect(parseNumber('')).toBeUndefined();
	});

	it('computes memoryPercent only when used and a positive total are known', () => {
		expect(memoryPercent(19818 * MiB, 81559 * MiB)).toBeCloseTo(24.299, 3);
		expect(memoryPercent(0, 81559 * MiB)).toBe(0);
		expect(memoryPercent(null, 81559 * MiB)).toBeNull();
		expect(memoryPercent(5, null)).toBeNull();
		expect(memoryPercent(0, 0)).toBeNull();
	});
});

describe('compute-apps', () => {
	it('reads the H100 load frame: 3 pids, bytes, parent GPU uuid', () => {
		const output = `${ourLines(H100, 'query-compute-apps', 1).join('\n')}\n`;
		expect(parseComputeAppsOutput(output)).toEqual({
			processes: [
				{pid: 11327, gpuUuid: H100_UUID, usedBytes: 2566 * MiB},
				{pid: 11328, gpuUuid: H100_UUID, usedBytes: 1542 * MiB},
				{pid: 11345, gpuUuid: H100_UUID, usedBytes: 15690 * MiB},
			],
			textLines: [],
		});
	});

	it('maps the Windows WDDM [N/A] per-process memory to null', () => {
		const lines = ourLines('windows-x86_64__nvidia-geforce-rtx-2080-super__591.86', 'query-compute-apps', 1);
		const {processes} = parseComputeAppsOutput(lines.join('\r\n'));
		expect(processes).toHaveLength(12);
		expect(processes.every(process => process.usedBytes === null)).toBe(true);
		expect(processes[0]).toEqual({pid: 12444, gpuUuid: H100_UUID, usedBytes: null});
	});

	it('reads the GB10 row projected onto our fields, and refuses its verbatim 4-column line', () => {
		expect(parseComputeAppsLine(ourLines('issue__gb10-unified-memory', 'query-compute-apps')[0]!)).toEqual({
			kind: 'row',
			row: {pid: 114687, gpuUuid: 'GPU-...', usedBytes: 19135 * MiB},
		});
		const verbatim = JSON.parse(fixture('csv/issue__gb10-unified-memory.json')).files[
			'query-compute-apps.csv'
		].trimEnd();
		expect(parseComputeAppsLine(verbatim)).toEqual({kind: 'text', text: verbatim});
	});

	it('treats empty output as no processes, and keeps error text apart', () => {
		expect(parseComputeAppsOutput('')).toEqual({processes: [], textLines: []});
		expect(parseComputeAppsOutput(fixture('errors/nvml-unknown-error.txt'))).toEqual({
			processes: [],
			textLines: ['Failed to initialize NVML: Unknown Error'],
		});
		expect(parseComputeAppsLine('gpu_uuid, pid, used_gpu_memory [MiB]').kind).toBe('text');
	});
});

describe('GpuSampleAssembler', () => {
	it('completes a sample on its count-th row, not one interval later', () => {
		const rows = ourLines('issue__gpustat-5-titanx-8gpu', 'query-gpu').map(rowOf);
		const assembler = new GpuSampleAssembler();
		// Arrival order does not matter; the sample comes out sorted by index.
		const shuffled = [rows[3]!, rows[0]!, rows[7]!, rows[1]!, rows[2]!, rows[6]!, rows[4]!, rows[5]!];
		const outputs = shuffled.map(row => assembler.push(row));
		expect(outputs.slice(0, 7).every(output => output.length === 0)).toBe(true);
		const [sample] = outputs[7]!;
		expect(sample!.gpus.map(gpu => gpu.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
	});

	it('closes a short sample when a row with a new timestamp arrives, and forgets it on reset', () => {
		const [first, second] = ourLines('issue__gpustat-5-titanx-8gpu', 'query-gpu').map(rowOf);
		const next = {...second!, timestamp: 'later'};
		const assembler = new GpuSampleAssembler();
		expect(assembler.push(first!)).toEqual([]);
		expect(assembler.push(next)).toEqual([{timestamp: first!.timestamp, gpus: [first!.reading]}]);
		assembler.reset();
		expect(assembler.push({...first!, timestamp: 'later'})).toEqual([]);
	});
});

describe('text helpers', () => {
	it('recognises the infoROM warning, and only warnings', () => {
		expect(isWarningLine(fixture('errors/inforom-warning.txt').trimEnd())).toBe(true);
		expect(isWarningLine(fixture('errors/nvml-unknown-error.txt').trimEnd())).toBe(false);
	});

	it('finds the first meaningful line', () => {
		expect(firstMeaningfulLine(['', '  ', ' No devices were found ', 'x'])).toBe('No devices were found');
		expect(firstMeaningfulLine(['', ' '])).toBeNull();
	});
});

// The GPU sensors (temperature.gpu, power.draw, power.limit) in the loop's rows: parsed from recorded lines projected
// onto our query by the fake's own code, markers as null, and the query without a field an older driver refuses.

import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {
	GPU_QUERY_FIELDS,
	GPU_SENSOR_FIELDS,
	dropRejectedField,
	parseGpuLine,
	parseNumber,
	type GpuField,
} from '../../src/system/nvidia-smi-parse.js';
import type {GpuReading} from '../../src/core/types.js';
import {projectTable} from '../helpers/fake-nvidia-smi/project.mjs';
import {DEFAULT_FIXTURES_ROOT, loadCatalogue, loadScenario} from '../helpers/fake-nvidia-smi/scenario.mjs';

const catalogue = loadCatalogue();
const H100 = 'linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01';

/** The rows nvidia-smi would print for `fields` from frame `frame` (0-based); unrecorded known fields are [N/A]. */
function lines(scenario: string, frame = 0, fields: readonly string[] = GPU_QUERY_FIELDS): string[] {
	const loaded = loadScenario(scenario);
	if (loaded.kind !== 'data') throw new Error(`${scenario} is not a data scenario`);
	const table = loaded.frames['query-gpu'][frame];
	if (table === undefined) throw new Error(`${scenario} has no frame ${frame}`);
	return projectTable(table, fields, {
		query: 'query-gpu',
		catalogue,
		noheader: true,
		nounits: true,
		fillMissing: 'known',
	});
}

function reading(line: string, fields?: readonly GpuField[]): GpuReading {
	const parsed = parseGpuLine(line, fields);
	if (parsed.kind !== 'row') throw new Error(`not a row: ${line}`);
	return parsed.row.reading;
}

function sensors(r: GpuReading) {
	return {
		utilizationPercent: r.utilizationPercent,
		temperatureC: r.temperatureC,
		powerDrawW: r.powerDrawW,
		powerLimitW: r.powerLimitW,
	};
}

describe('sensor values from the recordings', () => {
	it('H100 idle and under load: temperature, power draw (nvidia-smi averages it there) and limit', () => {
		expect(sensors(reading(lines(H100, 0)[0]!))).toEqual({
			utilizationPercent: 0,
			temperatureC: 41,
			powerDrawW: 69.85,
			powerLimitW: 700,
		});
		expect(sensors(reading(lines(H100, 1)[0]!))).toEqual({
			utilizationPercent: 100,
			temperatureC: 59,
			powerDrawW: 631.95,
			powerLimitW: 700,
		});
	});

	it('MIG: utilization [N/A] is null while temperature and power are read', () => {
		const mig = reading(lines('linux-x86_64__nvidia-h100-mig__590.48.01', 1)[0]!);
		expect(sensors(mig)).toEqual({utilizationPercent: null, temperatureC: 53, powerDrawW: 433.78, powerLimitW: 700});
	});

	it('[Not Supported] (GTX 770, 2018) and unrecorded power (TITAN X, 2016) are null, never 0', () => {
		const gtx770 = reading(lines('issue__megaminer-235-gtx770')[0]!);
		expect(sensors(gtx770)).toEqual({
			utilizationPercent: null,
			temperatureC: 52,
			powerDrawW: null,
			powerLimitW: null,
		});
		const titan = lines('issue__gpustat-5-titanx-8gpu').map(line => sensors(reading(line)));
		expect(titan[1]).toEqual({utilizationPercent: 86, temperatureC: 54, powerDrawW: null, powerLimitW: null});
	});

	it('driver 440 (bare N/A elsewhere in its line) and GB10 (a draw, no limit)', () => {
		expect(sensors(reading(lines('issue__gpu-utils-83-rtx2080-440')[0]!))).toEqual({
			utilizationPercent: 86,
			temperatureC: 45,
			powerDrawW: 176.98,
			powerLimitW: 200,
		});
		expect(sensors(reading(lines('issue__gb10-unified-memory')[0]!))).toMatchObject({
			temperatureC: 35,
			powerDrawW: 11.17,
			powerLimitW: null,
		});
	});

	it('reads watts with their unit left on (nounits ignored), and refuses a sensor cell that is not a number', () => {
		expect(parseNumber('106.56 W')).toBe(106.56);
		const cells = lines(H100, 1)[0]!.split(', ');
		const withCell = (field: GpuField, value: string) =>
			cells.map((cell, i) => (GPU_QUERY_FIELDS[i] === field ? value : cell)).join(', ');
		expect(reading(withCell('power.draw', '631.95 W')).powerDrawW).toBe(631.95);
		expect(parseGpuLine(withCell('temperature.gpu', 'hot')).kind).toBe('text');
		expect(reading(withCell('temperature.gpu', 'N/A')).temperatureC).toBeNull();
		expect(reading(withCell('power.limit', '[Unknown Error]')).powerLimitW).toBeNull();
	});
});

describe('a query without a refused sensor', () => {
	const refusal = readFileSync(join(DEFAULT_FIXTURES_ROOT, 'errors/invalid-field.txt'), 'utf8').split('\n')[0]!;
	const naming = (field: string) => refusal.replace('"device_minor"', `"${field}"`);

	it('drops the sensor the recorded refusal names, and only a sensor still asked for', () => {
		expect(refusal).toBe('Field "device_minor" is not a valid field to query.');
		const withoutDraw = dropRejectedField(GPU_QUERY_FIELDS, naming('power.draw'));
		expect(withoutDraw).toEqual(GPU_QUERY_FIELDS.filter(field => field !== 'power.draw'));
		expect(dropRejectedField(withoutDraw!, naming('power.draw'))).toBeNull();
		// The recorded field itself, a base field, or any other text: nothing to drop.
		expect(dropRejectedField(GPU_QUERY_FIELDS, refusal)).toBeNull();
		expect(dropRejectedField(GPU_QUERY_FIELDS, naming('memory.used'))).toBeNull();
		expect(dropRejectedField(GPU_QUERY_FIELDS, 'No devices were found')).toBeNull();
		// telegraf#6573 quoted the sentence with typographic quotes.
		expect(dropRejectedField(GPU_QUERY_FIELDS, 'Field “power.limit” is not a valid field to query.')).toEqual(
			GPU_QUERY_FIELDS.filter(field => field !== 'power.limit'),
		);
	});

	it('parses rows of the shorter query: the dropped sensor reads null, the others are kept', () => {
		const fewer = GPU_QUERY_FIELDS.filter(field => field !== 'power.draw');
		const line = lines(H100, 1, fewer)[0]!;
		expect(sensors(reading(line, fewer))).toEqual({
			utilizationPercent: 100,
			temperatureC: 59,
			powerDrawW: null,
			powerLimitW: 700,
		});
		// A row of the full query is not a row of the shorter one, and the other way round.
		expect(parseGpuLine(line).kind).toBe('text');
		expect(parseGpuLine(lines(H100, 1)[0]!, fewer).kind).toBe('text');
		const base = GPU_QUERY_FIELDS.filter(field => !(GPU_SENSOR_FIELDS as readonly string[]).includes(field));
		expect(sensors(reading(lines(H100, 1, base)[0]!, base))).toEqual({
			utilizationPercent: 100,
			temperatureC: null,
			powerDrawW: null,
			powerLimitW: null,
		});
	});
});

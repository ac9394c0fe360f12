// Which health fields are asked and how their cells read: the recorded `--help-query-gpu` of an H200 (driver
// 580.159.04) and of the H100/RTX 2080 captures (590/591), the recorded H200 rows, and a driver refusing one field.

import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, test} from 'vitest';
import {healthOf} from '../../src/system/nvidia-smi-health-cells.js';
import {fieldsInHelp, healthFieldsFor} from '../../src/system/nvidia-smi-health-help.js';
import {GPU_QUERY_FIELDS, dropRejectedField, parseGpuLine} from '../../src/system/nvidia-smi-parse.js';
import {DEFAULT_FIXTURES_ROOT, loadScenario} from '../helpers/fake-nvidia-smi/scenario.mjs';
import {h200QueryFields} from '../helpers/h200-health.js';

const h200Help = readFileSync(join(DEFAULT_FIXTURES_ROOT, 'help/h200__580.159__help-query-gpu.txt'), 'utf8');

function captureHelp(name: string): string {
	const scenario = loadScenario(name);
	if (scenario.kind !== 'data' || scenario.help === null) throw new Error(`${name} has no recorded help`);
	return scenario.help;
}

describe('the fields a help lists', () => {
	test('the H200: every health field, the throttle reasons by their new name', () => {
		const known = fieldsInHelp(h200Help);
		expect(known.has('clocks_throttle_reasons.sw_power_cap')).toBe(true);
		expect(known.has('memory.used')).toBe(true);
		expect(healthFieldsFor(known)).toHaveLength(14);
		expect(healthFieldsFor(known).slice(0, 2)).toEqual([
			'clocks_event_reasons.sw_power_cap',
			'clocks_event_reasons.hw_slowdown',
		]);
	});

	test.each([
		'cap-linux-h100-80gb-hbm3-590.48.01',
		'cap-linux-h100-mig-590.48.01',
		'cap-windows-geforce-rtx-2080-super-591.86',
	])('%s lists the same 14', name => {
		expect(healthFieldsFor(fieldsInHelp(captureHelp(name)))).toEqual(healthFieldsFor(fieldsInHelp(h200Help)));
	});

	test('a help before the rename (only `clocks_throttle_reasons.*`) gets the old names; an empty one none', () => {
		const old = h200Help.replace(/"clocks_event_reasons\.([a-z_]+)" or /g, '');
		expect(healthFieldsFor(fieldsInHelp(old)).slice(0, 5)).toEqual([
			'clocks_throttle_reasons.sw_power_cap',
			'clocks_throttle_reasons.hw_slowdown',
			'clocks_throttle_reasons.hw_thermal_slowdown',
			'clocks_throttle_reasons.sw_thermal_slowdown',
			'clocks_throttle_reasons.hw_power_brake_slowdown',
		]);
		expect(healthFieldsFor(fieldsInHelp(''))).toEqual([]);
	});
});

describe('cells', () => {
	test('no health field asked: no `health` key (a reading as before)', () => {
		const parsed = parseGpuLine('2026/11/28 05:47:40.415, 1, 0, GPU-x, NVIDIA H200, 143771, 0, 0, 35, 77.48, 700.00');
		expect(parsed.kind === 'row' && 'health' in parsed.row.reading).toBe(false);
	});

	test('values that are not as recorded read as unknown, and never cost the row its memory figures', () => {
		const fields = h200QueryFields();
		const base = '2026/11/28 05:47:40.415, 1, 0, GPU-x, NVIDIA H200, 143771, 0, 0, 35, 77.48, 700.00';
		const odd = [
			'Maybe',
			'Active',
			'[Unknown Error]',
			'[N/A]',
			'Not Active',
			'On',
			'x',
			'-1',
			'Perhaps',
			'No',
			'',
			'7',
			'Enabled',
			'41 C',
		];
		const parsed = parseGpuLine([base, ...odd].join(', '), fields);
		expect(parsed.kind).toBe('row');
		if (parsed.kind !== 'row') return;
		expect(parsed.row.reading.memoryTotalBytes).toBe(143771 * 1_048_576);
		expect(parsed.row.reading.health).toEqual({
			throttle: ['hw_slowdown'],
			eccMode: null,
			eccCorrected: null,
			eccUncorrected: null,
			retiredPagesPending: null,
			remappedRowsPending: false,
			remappedRowsFailure: null,
			remappedRowsUncorrectable: 7,
			migMode: 'enabled',
			memoryTemperatureC: 41,
		});
		expect(healthOf([], ['memory.used'])).toBeUndefined();
	});
});

describe('a driver that refuses a field', () => {
	test('a health field it names is dropped, as a sensor is; a base field is not', () => {
		const fields = h200QueryFields();
		const fewer = dropRejectedField(fields, 'Field "temperature.memory" is not a valid field to query.');
		expect(fewer).toEqual(fields.filter(f => f !== 'temperature.memory'));
		expect(dropRejectedField(fewer!, 'Field "temperature.memory" is not a valid field to query.')).toBeNull();
		expect(dropRejectedField(fields, 'Field "memory.used" is not a valid field to query.')).toBeNull();
		expect(dropRejectedField(GPU_QUERY_FIELDS, 'Field "power.draw" is not a valid field to query.')).toHaveLength(10);
	});
});

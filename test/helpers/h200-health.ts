// The H200 health recordings (driver 580.159.04, 2026-11-28: test/fixtures/nvidia-smi/csv/h200__health-*.json and the
// node's `--help-query-gpu` in help/), for tests: variants with ONE column's value changed, and readings made from a
// recorded row by the real parser, asked for the health fields the recorded help lists.

import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import type {GpuReading} from '../../src/core/types.js';
import {fieldsInHelp, healthFieldsFor} from '../../src/system/nvidia-smi-health-help.js';
import {GPU_QUERY_FIELDS, parseGpuLine, type QueryField} from '../../src/system/nvidia-smi-parse.js';
import {projectTable} from './fake-nvidia-smi/project.mjs';
import {DEFAULT_FIXTURES_ROOT, loadCatalogue, loadScenario} from './fake-nvidia-smi/scenario.mjs';
import {tempDir} from './fake-nvidia-smi/harness.js';

/**
 * A scenario file (an absolute path the fake takes as FAKE_NVSMI_SCENARIO): the busy H200 recording with `column`'s
 * value set to `value` in every row, and nothing else changed (the format, the other values, the help).
 */
export function h200Variant(column: string, value: string): string {
	const json = JSON.parse(readFileSync(join(DEFAULT_FIXTURES_ROOT, 'csv/h200__health-busy.json'), 'utf8'));
	const at = (json.fields as string[]).indexOf(column);
	if (at < 0) throw new Error(`the busy H200 recording has no column ${column}`);
	const text = json.files['query-gpu.csv'] as string;
	json.files['query-gpu.csv'] = text
		.split('\n')
		.map(line => {
			if (line === '') return line;
			const cells = line.split(', ');
			cells[at] = value;
			return cells.join(', ');
		})
		.join('\n');
	const file = join(tempDir(), `h200-${column}-${value}.json`);
	writeFileSync(file, JSON.stringify(json));
	return file;
}

/** The fields the reader asks the H200 for: the base fields and sensors, then the health fields its help lists. */
export function h200QueryFields(): QueryField[] {
	const help = readFileSync(join(DEFAULT_FIXTURES_ROOT, 'help/h200__580.159__help-query-gpu.txt'), 'utf8');
	return [...GPU_QUERY_FIELDS, ...healthFieldsFor(fieldsInHelp(help))];
}

/** The readings of one recorded frame (0-based) of a scenario, through the fake's projection and the real parser. */
export function h200Readings(scenario: string, frame = 0): GpuReading[] {
	const loaded = loadScenario(scenario);
	if (loaded.kind !== 'data') throw new Error(`${scenario} is not a data scenario`);
	const fields = h200QueryFields();
	const lines = projectTable(loaded.frames['query-gpu'][frame]!, fields, {
		query: 'query-gpu',
		catalogue: loadCatalogue(),
		noheader: true,
		nounits: true,
	});
	return lines.map(line => {
		const parsed = parseGpuLine(line, fields);
		if (parsed.kind !== 'row') throw new Error(`not a row: ${line}`);
		return parsed.row.reading;
	});
}

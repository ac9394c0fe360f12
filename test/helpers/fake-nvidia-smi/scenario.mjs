// Loads a recorded nvidia-smi scenario from test/fixtures/nvidia-smi into one shape the fake can replay:
// per-query frames (tables of recorded cells), an optional `-L` listing, or an error (text + exit code).
// Plain Node, no dependencies: the fake starts this on every invocation, so it must stay cheap.

import {existsSync, readdirSync, readFileSync} from 'node:fs';
import {basename, dirname, isAbsolute, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';

export const DEFAULT_FIXTURES_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../fixtures/nvidia-smi');

/** Thrown for anything the double cannot answer; the CLI turns it into exit 97 (a mis-configured test). */
export class CannotAnswer extends Error {}

/** The field catalogue: aliases (`gpu_name` → `name`) and header units per query kind. */
export function loadCatalogue(root = DEFAULT_FIXTURES_ROOT) {
	const raw = JSON.parse(readFileSync(join(root, 'fields.json'), 'utf8'));
	const catalogue = {};
	for (const [kind, query] of [
		['gpu', 'query-gpu'],
		['compute-apps', 'query-compute-apps'],
	]) {
		const aliases = new Map();
		for (const [canonical, names] of Object.entries(raw[kind] ?? {})) {
			aliases.set(canonical, canonical);
			for (const alias of names) aliases.set(alias, canonical);
		}
		catalogue[query] = {aliases, units: new Map(Object.entries(raw.units?.[kind] ?? {}))};
	}
	return catalogue;
}

export function canonicalField(catalogue, query, field) {
	return catalogue[query]?.aliases.get(field) ?? field;
}

/** `memory.total [MiB]` → {name: 'memory.total', unit: 'MiB'}. */
export function parseHeaderCell(cell) {
	const match = /^(.*?) \[(.+)\]$/.exec(cell);
	return match ? {name: match[1], unit: match[2]} : {name: cell, unit: null};
}

/**
 * Splits a recorded CSV line on ", ". Recorded values are never quoted, and only `process_name` can itself contain
 * ", " (a command line): extra cells are folded back into that column so the other columns keep their places.
 */
export function splitRecordedLine(line, columns) {
	const cells = line.replace(/\r$/, '').split(', ');
	const nameAt = columns.findIndex(column => column.name === 'process_name');
	if (cells.length > columns.length && nameAt >= 0) {
		const extra = cells.length - columns.length;
		cells.splice(nameAt, extra + 1, cells.slice(nameAt, nameAt + extra + 1).join(', '));
	}
	return cells;
}

/** Builds a table from recorded CSV text; `fields` names the columns when the recording has no header. */
export function tableFromCsv(text, {noheader, fields, catalogue, query}) {
	const lines = text
		.split('\n')
		.map(line => line.replace(/\r$/, ''))
		.filter(line => line.trim() !== '');
	let columns;
	if (noheader) {
		if (!fields) throw new CannotAnswer('a noheader recording without a `fields` list');
		columns = fields.map(name => ({name: canonicalField(catalogue, query, name), unit: null}));
	} else {
		const header = lines.shift();
		if (header === undefined) return {columns: [], rows: []};
		columns = header.split(', ').map(cell => {
			const {name, unit} = parseHeaderCell(cell);
			return {name: canonicalField(catalogue, query, name), unit};
		});
	}
	return {columns, rows: lines.map(line => splitRecordedLine(line, columns))};
}

/** Capture files hold sections `# <idle|load|capabilities> :: <label>`; the body is every line not starting with '#'. */
export function captureSections(text) {
	const sections = [];
	let current = null;
	for (const line of text.split('\n')) {
		const header = /^# (idle|load|capabilities) :: (.*)$/.exec(line);
		if (header) {
			current = {phase: header[1], label: header[2], lines: []};
			sections.push(current);
		} else if (current && !line.startsWith('#')) {
			current.lines.push(line);
		}
	}
	return sections;
}

function sectionText(section) {
	return section.lines.join('\n').trim() === '' ? '' : `${section.lines.join('\n').replace(/^\n+|\n+$/g, '')}\n`;
}

/** A scenario's recorded `--help-query-gpu` text: a file under the fixtures root, named by the JSON's `help_query_gpu`. */
function helpFile(json, root) {
	return json.help_query_gpu === undefined ? null : readFileSync(join(root, json.help_query_gpu), 'utf8');
}

/**
 * A recording of one GPU sampled several times (`frame_by: "timestamp"`, the H200 health recordings): each recorded
 * timestamp is a frame of its own, replayed one per loop interval, instead of every row being a GPU of one sample.
 */
function framesBy(table, column) {
	const at = table.columns.findIndex(c => c.name === column);
	if (at < 0) throw new CannotAnswer(`frame_by: no recorded column ${column}`);
	const frames = new Map();
	for (const row of table.rows) {
		const key = row[at];
		if (!frames.has(key)) frames.set(key, []);
		frames.get(key).push(row);
	}
	return [...frames.values()].map(rows => ({columns: table.columns, rows}));
}

function captureScenario(file, catalogue) {
	const sections = captureSections(readFileSync(file, 'utf8'));
	const frames = {'query-gpu': [], 'query-compute-apps': []};
	// Frame 1 = the idle state, frame 2 = the load state, as the capture script recorded them (format `csv`, header
	// and units on).
	for (const phase of ['idle', 'load']) {
		for (const query of Object.keys(frames)) {
			const section = sections.find(s => s.phase === phase && s.label.startsWith(`${query} `));
			if (section) frames[query].push(tableFromCsv(sectionText(section), {noheader: false, catalogue, query}));
		}
	}
	const list = sections.find(s => s.phase === 'capabilities' && s.label === 'list (-L)');
	const help = sections.find(s => s.phase === 'capabilities' && s.label === 'help-query-gpu');
	return {
		kind: 'data',
		frames,
		list: list ? sectionText(list) : null,
		help: help ? sectionText(help) : null,
		append: null,
		exit: 0,
	};
}

function issueScenario(json, catalogue, root) {
	const frames = {'query-gpu': [], 'query-compute-apps': []};
	for (const query of Object.keys(frames)) {
		const text = json.files?.[`${query}.csv`];
		if (text === undefined) continue;
		const recorded = json.recorded?.[`${query}.csv`];
		const format = recorded?.format ?? json.recorded_format ?? 'csv';
		const fields = recorded?.fields ?? json.fields;
		const table = tableFromCsv(text, {noheader: format.split(',').includes('noheader'), fields, catalogue, query});
		frames[query].push(...(json.frame_by === undefined ? [table] : framesBy(table, json.frame_by)));
	}
	return {kind: 'data', frames, list: null, help: helpFile(json, root), append: null, exit: 0};
}

/** `linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01` → `cap-linux-h100-80gb-hbm3-590.48.01` (the names errors/*.json use). */
export function captureAlias(stem) {
	const [platform, model, driver] = stem.split('__');
	if (!platform || !model || !driver) return null;
	return `cap-${platform.split('-')[0]}-${model.replace(/^nvidia-/, '')}-${driver}`;
}

/** Maps every name a scenario answers to (file stem, JSON `scenario` field, capture alias) to its file. */
function scenarioIndex(root) {
	const index = new Map();
	const add = (name, file) => {
		if (name && !index.has(name)) index.set(name, file);
	};
	for (const dir of ['captures', 'csv', 'errors']) {
		const folder = join(root, dir);
		if (!existsSync(folder)) continue;
		for (const entry of readdirSync(folder)) {
			const file = join(folder, entry);
			if (dir === 'captures' && entry.endsWith('.txt')) {
				const stem = entry.slice(0, -'.txt'.length);
				add(stem, file);
				add(captureAlias(stem), file);
			} else if (entry.endsWith('.json')) {
				add(entry.slice(0, -'.json'.length), file);
				add(JSON.parse(readFileSync(file, 'utf8')).scenario, file);
			}
		}
	}
	return index;
}

export function resolveScenarioFile(name, root = DEFAULT_FIXTURES_ROOT) {
	if (isAbsolute(name)) return existsSync(name) ? name : null;
	return scenarioIndex(root).get(name) ?? null;
}

export function loadScenario(name, root = DEFAULT_FIXTURES_ROOT, catalogue = loadCatalogue(root)) {
	const file = resolveScenarioFile(name, root);
	if (!file) throw new CannotAnswer(`no scenario named ${JSON.stringify(name)} under ${root}`);
	return {...loadScenarioFile(file, root, catalogue), name, file: basename(file)};
}

function loadScenarioFile(file, root, catalogue) {
	if (file.endsWith('.txt')) return captureScenario(file, catalogue);
	const json = JSON.parse(readFileSync(file, 'utf8'));
	if (json.base !== undefined) {
		// A warning on top of a working scenario (infoROM corrupted): the base's data, then the text, then the exit code.
		const base = loadScenario(json.base, root, catalogue);
		if (base.kind !== 'data') throw new CannotAnswer(`base scenario ${json.base} is not a data scenario`);
		return {...base, append: json.append_stdout ?? null, exit: json.exit ?? 0};
	}
	if (json.exit !== undefined && json.stdout !== undefined) {
		// `field`: the field name an invalid-field recording names (the fake substitutes it).
		return {kind: 'error', text: json.stdout, exit: json.exit, field: json.field ?? null};
	}
	if (json.files !== undefined) return issueScenario(json, catalogue, root);
	throw new CannotAnswer(`${file} is not a scenario the fake understands`);
}

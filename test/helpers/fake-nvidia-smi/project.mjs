// Projects a recorded table onto the fields a caller asked for, the way nvidia-smi would print them:
// ", "-separated, header with ` [unit]` unless `noheader`, units stripped from values with `nounits`.

import {CannotAnswer, canonicalField} from './scenario.mjs';

/** A requested field that is neither recorded nor derivable. Answering anything would lie about a real GPU. */
export class MissingField extends CannotAnswer {
	constructor(field) {
		super(`no field ${field}`);
		this.field = field;
	}
}

/** nvidia-smi's `timestamp` format, local time: `2026/07/14 08:12:53.500`. */
export function formatTimestamp(date = new Date()) {
	const pad = (value, width = 2) => String(value).padStart(width, '0');
	return (
		`${date.getFullYear()}/${pad(date.getMonth() + 1)}/${pad(date.getDate())} ` +
		`${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`
	);
}

/** `csv,noheader,nounits` → {noheader, nounits}; null for anything nvidia-smi would reject. */
export function parseFormat(spec) {
	const parts = spec.split(',').map(part => part.trim());
	if (!parts.includes('csv') || parts.some(part => !['csv', 'noheader', 'nounits'].includes(part))) return null;
	return {noheader: parts.includes('noheader'), nounits: parts.includes('nounits')};
}

const NUMBER = /^-?\d+(?:\.\d+)?$/;

function withUnits(value, unit, nounits) {
	if (unit === null) return value;
	if (nounits) return value.endsWith(` ${unit}`) ? value.slice(0, -unit.length - 1) : value;
	// A recording made with `nounits` is re-dressed when the caller wants units, as nvidia-smi would print them.
	return NUMBER.test(value) ? `${value} ${unit}` : value;
}

/** A field the catalogue (fields.json) lists for this kind of query: one some real driver answers. */
function knownField(catalogue, query, name) {
	return catalogue[query]?.aliases.has(name) === true;
}

/**
 * Returns the lines nvidia-smi would print (without line endings).
 * `timestamp` (a string) replaces the recorded one, as in loop mode; `count`, `index` and `timestamp` are derived
 * when the recording lacks them. Anything else that is missing: `fillMissing` true answers `[N/A]` for it, `'known'`
 * only when the catalogue knows the field (a real query field the recording did not ask for), false never.
 */
export function projectTable(
	table,
	requested,
	{query, catalogue, noheader, nounits, timestamp = null, fillMissing = false},
) {
	const units = catalogue[query]?.units ?? new Map();
	const columns = requested.map(field => {
		const name = canonicalField(catalogue, query, field);
		const at = table.columns.findIndex(column => column.name === name);
		const unit = (at >= 0 ? table.columns[at].unit : null) ?? units.get(name) ?? null;
		if (name === 'timestamp' && (timestamp !== null || at < 0)) {
			const now = timestamp ?? formatTimestamp();
			return {name, unit: null, value: () => now};
		}
		if (at >= 0) return {name, unit, value: row => withUnits(row[at] ?? '', unit, nounits)};
		if (query === 'query-gpu' && name === 'count') return {name, unit: null, value: () => String(table.rows.length)};
		if (query === 'query-gpu' && name === 'index')
			return {name, unit: null, value: (_row, position) => String(position)};
		if (fillMissing === true || (fillMissing === 'known' && knownField(catalogue, query, name))) {
			return {name, unit, value: () => '[N/A]'};
		}
		throw new MissingField(field);
	});
	const lines = noheader ? [] : [columns.map(c => (c.unit ? `${c.name} [${c.unit}]` : c.name)).join(', ')];
	table.rows.forEach((row, position) => {
		lines.push(columns.map(c => c.value(row, position)).join(', '));
	});
	return lines;
}

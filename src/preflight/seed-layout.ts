import {lookupPath} from './keys.js';

// The seed's channel count (credit/trainers/preflight.py): from the FIRST entry of data.source,
//   channels = len(prognostic.vars_3D) × len(levels) + len(prognostic.vars_2D) + len(diagnostic.vars_2D)
// The seed returns 0.0 ("best-effort") when that is 0 or cannot be counted; here each case says why instead.

export type SeedChannels =
	| {readonly channels: number; readonly from: string}
	| {readonly channels: null; readonly reason: string};

/** A list's length; a missing or null list (YAML `vars_2D:` left empty) counts 0; anything else cannot count. */
function count(source: unknown, path: string): number | string {
	const found = lookupPath(source, path);
	if (!found.found) return 0;
	return Array.isArray(found.value) ? found.value.length : `${path} is not a list`;
}

export function seedChannels(config: unknown): SeedChannels {
	const sources = lookupPath(config, 'data.source');
	if (!sources.found || typeof sources.value !== 'object' || Array.isArray(sources.value)) {
		return {channels: null, reason: 'no data.source (the seed layout counts channels from its variables)'};
	}
	const [name, source] = Object.entries(sources.value as Record<string, unknown>)[0] ?? [];
	if (name === undefined) return {channels: null, reason: 'data.source names no source'};
	const at = `data.source.${name}`;
	const parts = {
		levels: count(source, 'levels'),
		vars3d: count(source, 'variables.prognostic.vars_3D'),
		vars2d: count(source, 'variables.prognostic.vars_2D'),
		diag2d: count(source, 'variables.diagnostic.vars_2D'),
	};
	for (const part of Object.values(parts)) {
		if (typeof part === 'string') return {channels: null, reason: `${at}.${part}`};
	}
	const {levels, vars3d, vars2d, diag2d} = parts as Record<keyof typeof parts, number>;
	if (vars3d > 0 && levels === 0) {
		return {channels: null, reason: `${at} lists ${vars3d} vars_3D but no levels: its channels cannot be counted`};
	}
	const channels = vars3d * levels + vars2d + diag2d;
	if (channels === 0) return {channels: null, reason: `${at} lists no variables (0 channels)`};
	return {
		channels,
		from: `${at}: ${vars3d} vars_3D × ${levels} levels + ${vars2d} vars_2D + ${diag2d} diagnostic vars_2D`,
	};
}

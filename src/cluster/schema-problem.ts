import type {z} from 'zod';
import {didYouMean} from '../config/did-you-mean.js';
import type {Problem} from './cluster-rules.js';
import {knownKeysAt} from './cluster-schema.js';

// A zod issue of cluster.yaml in the file's own words: the path as it reads in YAML (`nodes[1].gpus[0].vram_mb`),
// the node's name when it has one, the rule and the value given.

type Path = readonly (string | number)[];

/** `nodes[1].gpus[0].vram_mb` */
function pathText(path: Path): string {
	return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`)).join('');
}

function valueAt(raw: unknown, path: Path): unknown {
	let value = raw;
	for (const key of path) {
		if (typeof value !== 'object' || value === null) return undefined;
		value = (value as Record<string | number, unknown>)[key];
	}
	return value;
}

/** ` (node "gpu2")` when the path is inside a node that has a name. */
function nodeNote(raw: unknown, path: Path): string {
	if (path[0] !== 'nodes' || typeof path[1] !== 'number') return '';
	const name = (valueAt(raw, path.slice(0, 2)) as {name?: unknown} | undefined)?.name;
	return typeof name === 'string' && name !== '' ? ` (node "${name}")` : '';
}

/** The value as the message quotes it: short, one line. */
function show(value: unknown): string {
	const text = JSON.stringify(value) ?? String(value);
	return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * The problem to report: an unknown key first (a misspelt key also makes the right one look missing, and the
 * misspelling is what the user has to fix), else the first issue.
 */
export function schemaProblem(issues: readonly z.core.$ZodIssue[], raw: unknown): Problem {
	const issue = issues.find(i => i.code === 'unrecognized_keys') ?? issues[0];
	if (!issue) return {path: [], message: 'not a cluster config'};
	const path = issue.path.filter((key): key is string | number => typeof key !== 'symbol');
	const where = pathText(path) + nodeNote(raw, path);
	if (issue.code === 'unrecognized_keys') {
		const key = issue.keys[0] ?? '';
		const known = knownKeysAt(path);
		return {
			path: [...path, key],
			message: `${where ? `${where}: ` : ''}unknown key "${key}"${didYouMean(key, known)}; known keys: ${known.join(', ')}`,
		};
	}
	const value = valueAt(raw, path);
	if (value === undefined) return {path, message: `${where} is missing: it ${issue.message}`};
	return {path, message: `${where || 'the file'} ${issue.message} (got ${show(value)})`};
}

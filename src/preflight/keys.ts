import {didYouMean} from '../config/did-you-mean.js';
import {UsageError} from '../core/errors.js';

// Where the estimate's inputs are in a training config: the seed's layout by default, or the dotted paths a
// `--preflight-keys workers=data.loader.workers,batch_size=…` mapping names for a config of another shape.

/** The inputs a mapping may name, as the user writes them. */
export const INPUT_KEYS = [
	'workers',
	'prefetch_factor',
	'batch_size',
	'sample_shape',
	'channels',
	'height',
	'width',
	'dtype',
	'nproc_per_node',
] as const;
export type InputKey = (typeof INPUT_KEYS)[number];

/**
 * The seed's layout (credit/trainers/preflight.py): trainer.thread_workers, trainer.prefetch_factor,
 * trainer.train_batch_size, model.image_height and model.image_width; the channels are counted from data.source
 * (seed-layout.ts). `num_workers` and `batch_size` are the names the issue and most loops use, looked for second.
 */
export const SEED_PATHS: Readonly<Partial<Record<InputKey, readonly string[]>>> = {
	workers: ['trainer.thread_workers', 'trainer.num_workers'],
	prefetch_factor: ['trainer.prefetch_factor'],
	batch_size: ['trainer.train_batch_size', 'trainer.batch_size'],
	height: ['model.image_height'],
	width: ['model.image_width'],
};

export type KeyMapping = ReadonlyMap<InputKey, string>;

const FLAG = '--preflight-keys';
const FORM = 'KEY=dotted.path,… e.g. workers=data.loader.workers,batch_size=data.loader.batch_size';

/** `workers=data.loader.workers,sample_shape=data.shape` → key → path; a UsageError naming the flag otherwise. */
export function parseKeyMapping(text: string): KeyMapping {
	const mapping = new Map<InputKey, string>();
	const items = text.split(',').map(item => item.trim());
	if (items.every(item => item === '')) throw new UsageError(`${FLAG} needs ${FORM}`);
	for (const item of items) {
		if (item === '') continue;
		const equals = item.indexOf('=');
		if (equals < 0) throw new UsageError(`${FLAG}: '${item}' is not ${FORM}`);
		const key = item.slice(0, equals).trim();
		const path = item.slice(equals + 1).trim();
		if (!(INPUT_KEYS as readonly string[]).includes(key)) {
			throw new UsageError(
				`${FLAG}: unknown key "${key}"${didYouMean(key, INPUT_KEYS)}; known keys: ${INPUT_KEYS.join(', ')}`,
			);
		}
		if (path === '' || path.split('.').some(segment => segment === '')) {
			throw new UsageError(`${FLAG}: ${key}=${path} needs a dotted path such as data.loader.workers`);
		}
		if (mapping.has(key as InputKey)) throw new UsageError(`${FLAG}: ${key} is mapped twice`);
		mapping.set(key as InputKey, path);
	}
	return mapping;
}

export type Lookup = {readonly found: true; readonly value: unknown} | {readonly found: false};

/** The value at `a.b.0.c` (a number indexes a list); not found when a step is missing or null. */
export function lookupPath(data: unknown, path: string): Lookup {
	let node: unknown = data;
	for (const segment of path.split('.')) {
		if (Array.isArray(node) && /^\d+$/.test(segment)) node = node[Number(segment)];
		else if (node !== null && typeof node === 'object' && !Array.isArray(node))
			node = (node as Record<string, unknown>)[segment];
		else return {found: false};
		if (node === undefined || node === null) return {found: false};
	}
	return {found: true, value: node};
}

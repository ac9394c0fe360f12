import {UsageError} from '../core/errors.js';
import {DEFAULT_DTYPE, type Dtype, parseDtype} from './dtype.js';
import type {LoaderInputs} from './estimate.js';
import {type InputKey, type KeyMapping, lookupPath, SEED_PATHS} from './keys.js';
import {seedChannels} from './seed-layout.js';
import {formatShape, parseSampleShape} from './shape.js';

// The estimate's inputs from flags and a training config: a flag wins, then the file (the --preflight-keys mapping,
// else the seed's layout). An input found nowhere is not guessed — the seed's own trainers default differently from
// its estimator (thread_workers 0, 1 or 4; prefetch_factor 2 or 4) — the estimate is skipped and each missing input
// says where it was looked for. A value that is there but wrong (a flag or a key) is bad input: a UsageError.

/** The flags as meow gives them: strings, so "abc" is quoted back as typed. */
export interface InputFlags {
	readonly workers?: unknown;
	readonly prefetchFactor?: unknown;
	readonly batchSize?: unknown;
	readonly sampleShape?: unknown;
	readonly dtype?: unknown;
	readonly nprocPerNode?: unknown;
}

/** A parsed training config: its file name (for messages), its content, and the mapping it is read with. */
export interface TrainConfig {
	readonly file: string;
	readonly data: unknown;
	readonly mapping: KeyMapping | null;
}

/** An input's value and where it came from: `--workers`, `train.yaml trainer.thread_workers`, `default`. */
export interface InputSource {
	readonly value: number | string;
	readonly from: string;
}

export type ResolvedInputs =
	| {
			readonly status: 'ready';
			readonly inputs: LoaderInputs;
			readonly dtype: Dtype;
			readonly sources: Readonly<Record<string, InputSource>>;
	  }
	| {
			readonly status: 'skipped';
			readonly missing: readonly string[];
			readonly sources: Readonly<Record<string, InputSource>>;
	  };

const FLAGS: Readonly<Record<'workers' | 'prefetch_factor' | 'batch_size' | 'nproc_per_node', keyof InputFlags>> = {
	workers: 'workers',
	prefetch_factor: 'prefetchFactor',
	batch_size: 'batchSize',
	nproc_per_node: 'nprocPerNode',
};
const MINIMUM = {workers: 0, prefetch_factor: 1, batch_size: 1, nproc_per_node: 1, channels: 1, height: 1, width: 1};

function flagOf(name: keyof InputFlags): string {
	return `--${name.replace(/[A-Z]/g, c => `-${c.toLowerCase()}`)}`;
}

function wholeNumber(value: unknown, where: string, min: number): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number === 'number' && Number.isInteger(number) && number >= min) return number;
	const got = typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
	throw new UsageError(`${where} must be a whole number of ${min} or more (got ${got})`);
}

/** A value, where it came from (for the report) and how an error names it (the flag, or the file and key). */
type Found = {readonly value: unknown; readonly from: string; readonly where: string} | {readonly missing: string};

/** A key's value in the file: at its mapped path, else at the seed layout's paths. */
function fromFile(config: TrainConfig, key: InputKey): Found {
	const mapped = config.mapping?.get(key);
	const paths = mapped !== undefined ? [mapped] : (SEED_PATHS[key] ?? []);
	for (const path of paths) {
		const found = lookupPath(config.data, path);
		if (found.found) return {value: found.value, from: `${config.file} ${path}`, where: `${config.file}: key ${path}`};
	}
	if (paths.length === 0) return {missing: `not in the seed layout; map it with --preflight-keys ${key}=PATH`};
	const how = mapped !== undefined ? ', as --preflight-keys maps it' : '';
	return {missing: `not in ${config.file} (looked for ${paths.join(', ')}${how})`};
}

/** The mapped channels may be a number or a list of variables (its length). */
function channelsFromFile(config: TrainConfig): Found {
	if (config.mapping?.has('channels')) {
		const found = fromFile(config, 'channels');
		return 'value' in found && Array.isArray(found.value) ? {...found, value: found.value.length} : found;
	}
	const seed = seedChannels(config.data);
	return seed.channels === null
		? {missing: `${seed.reason} in ${config.file}`}
		: {value: seed.channels, from: `${config.file} ${seed.from}`, where: config.file};
}

interface Collector {
	readonly sources: Record<string, InputSource>;
	readonly missing: string[];
}

function numberInput(
	key: keyof typeof FLAGS,
	flags: InputFlags,
	config: TrainConfig | null,
	c: Collector,
): number | null {
	const flag = FLAGS[key];
	const hint = `give ${flagOf(flag)} N`;
	let found: Found;
	if (flags[flag] !== undefined) found = {value: flags[flag], from: flagOf(flag), where: flagOf(flag)};
	else if (config) found = fromFile(config, key);
	else found = {missing: `${hint} (or --train-config FILE)`};
	if ('missing' in found) {
		if (key === 'nproc_per_node') {
			c.sources[key] = {value: 1, from: 'default: one rank per node; --nproc-per-node to change'};
			return 1;
		}
		c.missing.push(`${key}: ${found.missing}${config ? `; or ${hint}` : ''}`);
		return null;
	}
	const value = wholeNumber(found.value, found.where, MINIMUM[key]);
	c.sources[key] = {value, from: found.from};
	return value;
}

function shapeInput(flags: InputFlags, config: TrainConfig | null, c: Collector): number[] | null {
	const set = (shape: number[], from: string) => {
		c.sources.sample_shape = {value: formatShape(shape), from};
		return shape;
	};
	if (flags.sampleShape !== undefined)
		return set(parseSampleShape(flags.sampleShape, '--sample-shape'), '--sample-shape');
	if (!config) {
		c.missing.push('sample_shape: give --sample-shape CxHxW (or --train-config FILE)');
		return null;
	}
	if (config.mapping?.has('sample_shape')) {
		const found = fromFile(config, 'sample_shape');
		if ('missing' in found) {
			c.missing.push(`sample_shape: ${found.missing}; or give --sample-shape CxHxW`);
			return null;
		}
		return set(parseSampleShape(found.value, found.where), found.from);
	}
	const parts = {
		channels: channelsFromFile(config),
		height: fromFile(config, 'height'),
		width: fromFile(config, 'width'),
	};
	const dims: number[] = [];
	const froms: string[] = [];
	for (const [name, found] of Object.entries(parts) as [keyof typeof parts, Found][]) {
		if ('missing' in found) c.missing.push(`sample_shape: ${name}: ${found.missing}; or give --sample-shape CxHxW`);
		else {
			dims.push(wholeNumber(found.value, found.where, MINIMUM[name]));
			froms.push(found.from);
		}
	}
	// `cfg.yaml data.source…; model.image_height; model.image_width`: the file named once.
	const prefix = `${config.file} `;
	const from = froms.every(f => f.startsWith(prefix))
		? prefix + froms.map(f => f.slice(prefix.length)).join('; ')
		: froms.join('; ');
	return dims.length === 3 ? set(dims, from) : null;
}

function dtypeInput(flags: InputFlags, config: TrainConfig | null, c: Collector): Dtype {
	let dtype: Dtype;
	let from: string;
	const mapped = config?.mapping?.has('dtype') ? fromFile(config, 'dtype') : null;
	if (flags.dtype !== undefined) {
		dtype = parseDtype(String(flags.dtype), '--dtype');
		from = '--dtype';
	} else if (mapped && 'value' in mapped) {
		dtype = parseDtype(String(mapped.value), mapped.where);
		from = mapped.from;
	} else {
		dtype = parseDtype(DEFAULT_DTYPE, 'the default dtype');
		const why = mapped && 'missing' in mapped ? ` (${mapped.missing})` : '';
		from = `default: the seed's float32${why}; --dtype to change`;
	}
	c.sources.dtype = {value: dtype.name, from};
	return dtype;
}

/** Every input from flags and the file, or the list of what is missing and where it was looked for. */
export function resolveInputs(flags: InputFlags, config: TrainConfig | null): ResolvedInputs {
	const c: Collector = {sources: {}, missing: []};
	const given = [
		flags.workers,
		flags.prefetchFactor,
		flags.batchSize,
		flags.sampleShape,
		flags.dtype,
		flags.nprocPerNode,
	];
	const nothing = config === null && given.every(value => value === undefined);
	if (nothing) {
		const missing = [
			'no inputs: give --train-config FILE, or --workers, --prefetch-factor, --batch-size and --sample-shape',
		];
		return {status: 'skipped', missing, sources: {}};
	}
	const workers = numberInput('workers', flags, config, c);
	const prefetchFactor = numberInput('prefetch_factor', flags, config, c);
	const batchSize = numberInput('batch_size', flags, config, c);
	const sampleShape = shapeInput(flags, config, c);
	const dtype = dtypeInput(flags, config, c);
	const nprocPerNode = numberInput('nproc_per_node', flags, config, c) ?? 1;
	if (workers === null || prefetchFactor === null || batchSize === null || sampleShape === null) {
		return {status: 'skipped', missing: c.missing, sources: c.sources};
	}
	const inputs = {workers, prefetchFactor, batchSize, sampleShape, dtypeBytes: dtype.bytes, nprocPerNode};
	return {status: 'ready', inputs, dtype, sources: c.sources};
}

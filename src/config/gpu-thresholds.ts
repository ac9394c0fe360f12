import {z} from 'zod';
import {parseDecimal} from './decimal.js';

// Per-GPU memory thresholds, keyed by the GPU's uuid (as `nvidia-smi -L` prints it): `--gpu-thresholds
// GPU-8f2c…=60,GPU-1a3e…=85` on the command line, `{"gpuThresholds": {"GPU-8f2c…": 60}}` in a config file. A GPU
// named here is judged against its own threshold, the others against `--gpu-threshold`. The fleet passes a
// cluster.yaml's reserve factors to each node's agent in the flag form, so the two forms must round-trip.

/** A threshold is a percentage of the GPU's memory; below 1 % every GPU in use would be critical. */
const MIN_PERCENT = 1;
const MAX_PERCENT = 100;

/** False for a uuid the flag form cannot carry: a space, "," or "=" (which no GPU uuid holds). */
export function isPlainUuid(uuid: string): boolean {
	return !/[\s,=]/.test(uuid);
}

type Result = {readonly ok: true; readonly value: Map<string, number>} | {readonly ok: false; readonly message: string};

function checkUuid(uuid: string): string | null {
	if (uuid === '') return 'has an entry with no GPU uuid before "="';
	if (!isPlainUuid(uuid)) return `has GPU uuid "${uuid}", which holds a space, "," or "=" (no GPU uuid does)`;
	return null;
}

function checkPercent(uuid: string, percent: number): string | null {
	if (!Number.isFinite(percent) || percent < MIN_PERCENT || percent > MAX_PERCENT)
		return `entry for GPU "${uuid}" must be a percentage from ${MIN_PERCENT} to ${MAX_PERCENT}`;
	return null;
}

/** `UUID=PCT[,UUID=PCT…]` → uuid → percent; the message says which entry broke which rule. */
function parseFlagText(text: string): Result {
	const value = new Map<string, number>();
	for (const raw of text.split(',')) {
		const entry = raw.trim();
		if (entry === '') return {ok: false, message: 'has an empty entry (a comma-separated list of UUID=PCT)'};
		const at = entry.lastIndexOf('=');
		if (at < 0) return {ok: false, message: `entry "${entry}" is not UUID=PCT (a GPU uuid, "=", a percentage)`};
		const uuid = entry.slice(0, at).trim();
		const percentText = entry.slice(at + 1).trim();
		const percent = parseDecimal(percentText) ?? Number.NaN;
		const problem = checkUuid(uuid) ?? checkPercent(uuid, percent);
		if (problem) return {ok: false, message: problem};
		if (value.has(uuid)) return {ok: false, message: `lists GPU "${uuid}" twice`};
		value.set(uuid, percent);
	}
	return {ok: true, value};
}

/** A config file's `{"UUID": PCT}` object → uuid → percent. */
function parseObject(object: Readonly<Record<string, unknown>>): Result {
	const value = new Map<string, number>();
	for (const [uuid, percent] of Object.entries(object)) {
		const problem = checkUuid(uuid) ?? checkPercent(uuid, typeof percent === 'number' ? percent : Number.NaN);
		if (problem) return {ok: false, message: problem};
		value.set(uuid, percent as number);
	}
	return {ok: true, value};
}

/**
 * The setting's schema: the flag's text or a config file's object, each to a uuid → percent map. Every message
 * reads after the flag or key that carried it: `--gpu-thresholds lists GPU "GPU-1" twice`.
 */
export const gpuThresholdsSchema = z.unknown().transform((input, ctx) => {
	const isObject = typeof input === 'object' && input !== null && !Array.isArray(input);
	const result =
		typeof input === 'string'
			? parseFlagText(input)
			: isObject
				? parseObject(input as Record<string, unknown>)
				: ({ok: false, message: 'must be UUID=PCT[,UUID=PCT…] or an object {"UUID": PCT}'} as const);
	if (result.ok) return result.value as ReadonlyMap<string, number>;
	ctx.addIssue({code: 'custom', message: result.message});
	return z.NEVER;
});

/** uuid → percent as the flag takes it, for an agent's command line: `GPU-a=60,GPU-b=85`. */
export function formatGpuThresholds(thresholds: ReadonlyMap<string, number>): string {
	return [...thresholds].map(([uuid, percent]) => `${uuid}=${percent}`).join(',');
}

import {schedulerLogKeys} from '../scheduler/registry.js';
import {KeyTable} from './json-bytes.js';

// The keys of a memory-log record as the byte scanner (scan-line.ts) knows them: an id per key, the
// table that finds the id from a key's bytes, and which fields of memory, swap and the GPU aggregate
// it converts and which the record schema requires. The schedulers' log keys (their entries' `logKey`) come from the
// registry when the module loads and take the ids after the fixed keys.

const KEYS = [
	'timestamp',
	'host',
	'interval_s',
	'samples',
	'memory',
	'swap',
	'gpu',
	'gpus',
	'gpu_status',
	'gpu_message',
	'alerts',
	'total_gb',
	'used_gb',
	'percent',
	'available_gb',
	'peak_percent',
	'peak_used_gb',
	'memory_allocated_gb',
	'memory_total_gb',
	'memory_percent',
	'peak_memory_percent',
	'index',
	'uuid',
	'name',
	'memory_used_gb',
	'utilization_percent',
	'cgroup',
	'scope',
	'path',
	'version',
	'limit_gb',
	'job_id',
	'restart_count',
	'threshold',
] as const;
const LOG_KEYS = schedulerLogKeys();
/** The schedulers' log keys: key id JOB_KEY_FROM + i is the i-th. */
export const JOB_KEYS: readonly string[] = LOG_KEYS.map(({key}) => key);
/** The name of the scheduler whose log key is `key` (its entry's `name`), for the report's words. */
export function schedulerNameOf(key: string): string {
	return LOG_KEYS.find(one => one.key === key)?.name ?? key;
}
export const JOB_KEY_FROM = KEYS.length + 1;
export const KEY_TABLE = new KeyTable([...KEYS, ...JOB_KEYS]);
/** Key ids: position in KEYS + 1 (0 = a key we do not know). */
export const KEY_ID = Object.fromEntries(KEYS.map((k, i) => [k, i + 1])) as Record<(typeof KEYS)[number], number>;

/** The numeric objects of a record: which keys, which are used (converted), which are required. */
export interface ObjectSpec {
	/** Key id → the field's position, -1 for keys the object does not have. */
	readonly slot: Int8Array;
	readonly convert: readonly boolean[];
	/** Bit i set: field i must be there. */
	readonly required: number;
}

/** Fields as [key, used by the analysis, required by the schema]; the used ones come first, in the order read out. */
function spec(...fields: [key: (typeof KEYS)[number], convert: boolean, required: boolean][]): ObjectSpec {
	const slot = new Int8Array(KEYS.length + 1).fill(-1);
	fields.forEach(([key], i) => {
		slot[KEY_ID[key]] = i;
	});
	return {
		slot,
		convert: fields.map(([, convert]) => convert),
		required: fields.reduce((mask, [, , required], i) => (required ? mask | (1 << i) : mask), 0),
	};
}

export const MEMORY_FIELDS = spec(
	['percent', true, true],
	['used_gb', true, true],
	['peak_percent', true, false],
	['total_gb', false, true],
	['available_gb', false, false],
	['peak_used_gb', false, false],
);
export const SWAP_FIELDS = spec(
	['percent', true, true],
	['total_gb', true, true],
	['peak_percent', true, false],
	['used_gb', false, true],
);
export const GPU_FIELDS = spec(
	['memory_percent', true, true],
	['peak_memory_percent', true, false],
	['memory_allocated_gb', false, true],
	['memory_total_gb', false, true],
);

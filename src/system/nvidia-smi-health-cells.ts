import {type GpuHealth, THROTTLE_REASONS, type ThrottleReason, UNKNOWN_HEALTH} from '../core/gpu-health-types.js';

// The health fields of nvidia-smi's `--query-gpu` (core/gpu-health-types.ts says what each means) and how their cells
// read. Pure; imports nothing of the loop's parser, which reads a row's health through `healthOf`.
//
// The values are written as the drivers write them (recorded on an H200, driver 580.159, and in the H100/RTX 2080
// captures of driver 590/591): `Active`/`Not Active`, `Enabled`/`Disabled`, `Yes`/`No`, counts, `[N/A]`. Anything
// else reads null (unknown): a health cell is never a reason to lose the row's memory figures.

/** The non-throttle health fields, each with the GpuHealth key it fills. */
const OTHER_FIELDS = {
	'ecc.mode.current': 'eccMode',
	'ecc.errors.corrected.volatile.total': 'eccCorrected',
	'ecc.errors.uncorrected.volatile.total': 'eccUncorrected',
	'retired_pages.pending': 'retiredPagesPending',
	'remapped_rows.pending': 'remappedRowsPending',
	'remapped_rows.failure': 'remappedRowsFailure',
	'remapped_rows.uncorrectable': 'remappedRowsUncorrectable',
	'mig.mode.current': 'migMode',
	'temperature.memory': 'memoryTemperatureC',
} as const satisfies Record<string, Exclude<keyof GpuHealth, 'throttle'>>;

type OtherField = keyof typeof OTHER_FIELDS;
type ThrottleField = `clocks_event_reasons.${ThrottleReason}` | `clocks_throttle_reasons.${ThrottleReason}`;

/** A health field as the loop may ask for it (either spelling of a throttle reason). */
export type HealthField = ThrottleField | OtherField;

/**
 * One health item and the names a driver may know it by, newest first: what `--help-query-gpu` is searched for (a
 * throttle reason is `clocks_event_reasons.*` from driver 535 on, `clocks_throttle_reasons.*` before). In the order
 * the loop asks for them, after the sensors.
 */
export const HEALTH_ITEMS: readonly (readonly HealthField[])[] = [
	...THROTTLE_REASONS.map(
		reason => [`clocks_event_reasons.${reason}`, `clocks_throttle_reasons.${reason}`] as const satisfies HealthField[],
	),
	...(Object.keys(OTHER_FIELDS) as OtherField[]).map(field => [field]),
];

const ALL_HEALTH_FIELDS: ReadonlySet<string> = new Set(HEALTH_ITEMS.flat());

export function isHealthField(name: string): name is HealthField {
	return ALL_HEALTH_FIELDS.has(name);
}

function throttleReasonOf(field: string): ThrottleReason | null {
	const match = /^clocks_(?:event|throttle)_reasons\.(.+)$/.exec(field);
	const reason = match?.[1] as ThrottleReason | undefined;
	return reason !== undefined && THROTTLE_REASONS.includes(reason) ? reason : null;
}

const flag = (cell: string, yes: string, no: string): boolean | null =>
	cell === yes ? true : cell === no ? false : null;

const mode = (cell: string): 'enabled' | 'disabled' | null =>
	cell === 'Enabled' ? 'enabled' : cell === 'Disabled' ? 'disabled' : null;

/** A whole count or a temperature; a unit suffix (` C`) is tolerated in case `nounits` was not honoured. */
function count(cell: string): number | null {
	const match = /^(\d+(?:\.\d+)?)(?: ?C)?$/.exec(cell);
	return match?.[1] === undefined ? null : Number(match[1]);
}

function otherValue(field: OtherField, cell: string): GpuHealth[(typeof OTHER_FIELDS)[OtherField]] {
	switch (OTHER_FIELDS[field]) {
		case 'eccMode':
		case 'migMode':
			return mode(cell);
		case 'retiredPagesPending':
		case 'remappedRowsPending':
		case 'remappedRowsFailure':
			return flag(cell, 'Yes', 'No');
		default:
			return count(cell);
	}
}

/**
 * A row's health from its cells, read against the fields the loop asked for; undefined when it asked for none (the
 * reading then has no `health`: not asked, as from a reader without health). `throttle` is null when no throttle
 * field was asked or none had a value.
 */
export function healthOf(cells: readonly string[], fields: readonly string[]): GpuHealth | undefined {
	const health: {-readonly [K in keyof GpuHealth]: GpuHealth[K]} = {...UNKNOWN_HEALTH};
	let asked = false;
	const active: ThrottleReason[] = [];
	let anyThrottle = false;
	fields.forEach((field, at) => {
		if (!isHealthField(field)) return;
		asked = true;
		const cell = (cells[at] ?? '').trim();
		const reason = throttleReasonOf(field);
		if (reason !== null) {
			const on = flag(cell, 'Active', 'Not Active');
			if (on !== null) anyThrottle = true;
			if (on === true) active.push(reason);
			return;
		}
		const key = OTHER_FIELDS[field as OtherField];
		(health as Record<string, unknown>)[key] = otherValue(field as OtherField, cell);
	});
	if (!asked) return undefined;
	health.throttle = anyThrottle ? active : null;
	return health;
}

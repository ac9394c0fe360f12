import type {OptionSpec} from '../config/option-spec.js';
import {UsageError} from '../core/errors.js';
import type {ReadinessOptions} from '../core/job-readiness.js';

// `traintop drill`'s own flags, shaped like the option table's entries (config/options.ts) so that help, completion
// and the parser take them from here (cli/commands.ts: a command's `options`), as preflight's do.
//
// For the merger: --grace and --max-work-at-risk are becoming settings of the monitor (keys `grace` and
// `maxWorkAtRisk` in config/options.ts and schema.ts). allOptions() keeps the shared table's entry of a name over a
// command's own, so once they are there these two entries go, the drill takes them through `alsoTakes`, and
// readinessOptions() reads `settings.grace` / `settings.maxWorkAtRisk` instead of the raw flags.

const OWN: OptionSpec['commands'] = ['drill'];

export const DRILL_OPTIONS: readonly OptionSpec[] = [
	{
		name: 'grace',
		usage: '--grace SECONDS',
		kind: 'number',
		description:
			"seconds from a preemption's signal to the kill, when you know them (a cloud's spot notice: 30, 120); else the scheduler's",
		commands: OWN,
	},
	{
		name: 'maxWorkAtRisk',
		usage: '--max-work-at-risk SECONDS',
		kind: 'number',
		defaultText: 'twice the save cadence',
		description: 'the most training time since the last complete save that you accept losing',
		commands: OWN,
	},
];

/** A number of seconds above 0, as given (flags arrive as strings); null when not given. */
function seconds(value: unknown, flag: string): number | null {
	if (value === undefined) return null;
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
	if (Number.isFinite(number) && number > 0) return number;
	const got = typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
	throw new UsageError(`${flag} must be a number of seconds above 0 (got ${got})`);
}

/** --grace and --max-work-at-risk as the verdict takes them; a UsageError naming the flag for a bad value. */
export function readinessOptions(flags: Readonly<Record<string, unknown>>): ReadinessOptions {
	return {
		graceS: seconds(flags.grace, '--grace'),
		maxWorkAtRiskS: seconds(flags.maxWorkAtRisk, '--max-work-at-risk'),
	};
}

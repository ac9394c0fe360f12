import type {CommandName} from '../cli/command-names.js';
import type {SettingKey} from './schema.js';

/**
 * The one table of command-line options. meow's flag spec, every `--help`, shell completion and docs/configuration.md's options
 * table are all derived from it, so a flag cannot exist without its help line, its default and its commands.
 */
export interface OptionSpec {
	/** camelCase name: the meow flag name and, for settings, the config-file key. */
	readonly name: string;
	/** How the flag is written, e.g. `--ram-threshold PCT`. */
	readonly usage: string;
	readonly kind: 'number' | 'string' | 'boolean';
	readonly description: string;
	/** Shown in --help; omitted for flags without one. */
	readonly defaultText?: string;
	/** Settings can also come from the config file; mode flags cannot. */
	readonly setting?: SettingKey;
	/** The commands it applies to: their help lists it, and completion offers it after them. */
	readonly commands: readonly CommandName[];
	/** A one-letter form (`h` for -h). */
	readonly short?: string;
}

/** A scheduler's own option (scheduler/entry.ts `options`): listed right after the option `after` names. */
export interface SchedulerOption extends OptionSpec {
	readonly after: string;
}

/** A scheduler's words for a generic option's help (scheduler/entry.ts `optionWords`), in place of the neutral ones. */
export interface OptionWords {
	readonly description?: string;
	readonly defaultText?: string;
}

import type {Settings, SettingsInput} from '../config/schema.js';
import type {RankSelector} from '../ranks/tree.js';
import type {ParsedArgv} from './argv.js';

// What a command of the table (cli/command-table.ts) is run with: the parsed command line, and for the commands
// that read settings, the settings as resolved from defaults, the config file and the flags.

export interface Call {
	readonly cli: ParsedArgv;
	/** The words after the first (the command word's arguments: `signal save RUN_DIR` → save, RUN_DIR). */
	readonly args: readonly string[];
	/** Ends traintop at once, exit 0 (a second Ctrl-C, q on the TUI): cli.ts owns process.exit, so it hands this down. */
	readonly exitNow: () => never;
}

export interface SettledCall extends Call {
	readonly settings: Settings;
	/** What the user set (file, then flags), apart from the defaults. */
	readonly given: SettingsInput;
	readonly selector: RankSelector;
	readonly json: boolean;
}

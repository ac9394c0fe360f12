import {
	type ArgumentCompletion,
	allOptions,
	COMMAND_NAMES,
	COMMAND_WORDS,
	COMMANDS,
	optionsOf,
} from '../cli/commands.js';
import type {OptionSpec} from '../config/option-spec.js';
import {flagName} from '../config/options.js';

// What completion offers, shell-neutral, from the command and option tables; the bash and zsh writers
// (completion-bash.ts, completion-zsh.ts) each turn it into a script, and completion.ts picks one.

/** What the scripts complete, shell-neutral. Flags are as written (`--ram-threshold`, `--no-log`). */
export interface CompletionModel {
	/** The commands typed as a word (demo, ranks…). */
	readonly words: readonly string[];
	/** Flags that take a file or path value (--config FILE): their value is completed as a file name. */
	readonly fileFlags: readonly string[];
	/** Other flags that take a value (--job ID, --pid PID): nothing is offered for it (nothing dynamic). */
	readonly valueFlags: readonly string[];
	/** Every flag: offered before a command word (any flag may come first). */
	readonly allFlags: readonly string[];
	/** Per command (monitor: after its RUN_DIR; analyze: after --analyze), its flags and what its arguments are. */
	readonly commands: readonly {
		readonly name: string;
		readonly flags: readonly string[];
		readonly args: ArgumentCompletion;
	}[];
}

/** The form completion offers: the long one (`--help`, not `-h`), `--no-log` as the table writes it. */
function written(option: OptionSpec): string {
	return option.usage.split(/[ ,]/).find(word => word.startsWith('--')) ?? flagName(option.name);
}

export function completionModel(): CompletionModel {
	const options = allOptions();
	const takesValue = options.filter(o => o.kind !== 'boolean');
	const isFile = (o: OptionSpec) => /\b(FILE|PATH)\b/.test(o.usage);
	return {
		words: COMMAND_WORDS,
		fileFlags: takesValue.filter(isFile).map(written),
		valueFlags: takesValue.filter(o => !isFile(o)).map(written),
		allFlags: options.map(written),
		commands: COMMAND_NAMES.map(name => ({
			name,
			flags: optionsOf(name).map(written),
			args: COMMANDS[name].arguments,
		})),
	};
}

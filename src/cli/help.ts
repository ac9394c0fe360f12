import type {OptionSpec} from '../config/option-spec.js';
import {traintopVersion} from '../agent/version.js';
import {UsageError} from '../core/errors.js';
import {wrapText} from '../format/wrap-text.js';
import {allOptions, COMMAND_NAMES, COMMANDS, type CommandName, isCommandWord, optionsOf} from './commands.js';
import {closest} from './suggest.js';

// Every --help text, from the command table and the option table: no line wider than a standard 80-column terminal.

const HELP_WIDTH = 80;
/** Where option descriptions start; a longer usage has its description on the lines below. */
const DESCRIPTION_COLUMN = 26;
const INDENT = '  ';

const wrap = (text: string, indent = INDENT): string[] => wrapText(`${indent}${text}`, HELP_WIDTH, indent);

function optionLines(option: OptionSpec, description: string): string[] {
	const def = option.defaultText === undefined ? '' : ` (default: ${option.defaultText})`;
	const head = `${INDENT}${option.usage}`;
	const body = wrapText(
		`${' '.repeat(DESCRIPTION_COLUMN)}${description}${def}`,
		HELP_WIDTH,
		' '.repeat(DESCRIPTION_COLUMN),
	);
	if (head.length + 2 <= DESCRIPTION_COLUMN)
		return [head.padEnd(DESCRIPTION_COLUMN) + body[0]!.trimStart(), ...body.slice(1)];
	return [head, ...body];
}

/** In the list of every option, one that only some commands take says which (`signal: …`). */
function scopedDescription(option: OptionSpec): string {
	const words = option.commands.filter(name => COMMANDS[name].isWord || name === 'analyze');
	// The monitor's options are the default's; --analyze needs no `analyze:` before it.
	const everywhere =
		option.commands.includes('monitor') || words.length === 0 || (words as readonly string[]).includes(option.name);
	return everywhere ? option.description : `${words.join(', ')}: ${option.description}`;
}

const EXIT_CODES =
	'Exit codes: 0 ok · 1 runtime failure · 2 usage, config or unreadable input · 3 a signal was refused or failed · 4 --fail-on-breach found a breach';

/** `traintop --help`: what traintop is, every command in a line, then every option. */
function overviewHelp(): string {
	const name = Math.max(...COMMAND_NAMES.map(n => n.length)) + 2;
	const commands = COMMAND_NAMES.flatMap(n =>
		wrapText(`${INDENT}${n.padEnd(name)}${COMMANDS[n].summary}`, HELP_WIDTH, ' '.repeat(INDENT.length + name)),
	);
	return [
		...wrap(
			'traintop — watch a training job: RAM, swap and GPU memory against thresholds, its ranks and their signal handlers, its checkpoints.',
			'',
		),
		'',
		'Usage',
		...COMMANDS.monitor.usage.map(line => `${INDENT}${line}`),
		`${INDENT}traintop COMMAND [ARGS] [options]`,
		...COMMANDS.help.usage.map(line => `${INDENT}${line}`),
		'',
		'Commands (monitor: no word; analyze: the --analyze flag)',
		...commands,
		'',
		...wrap(COMMANDS.monitor.notes![0]!, ''),
		'',
		'Options',
		...allOptions().flatMap(o => optionLines(o, scopedDescription(o))),
		'',
		...wrap(EXIT_CODES, ''),
	].join('\n');
}

/** `traintop help signal`, `traintop signal --help`: its usage, what to know, and only the options it takes. */
function commandHelp(name: CommandName): string {
	const command = COMMANDS[name];
	const notes = (command.notes ?? []).flatMap(note => ['', ...wrap(note, '')]);
	const options = optionsOf(name);
	return [
		...wrap(`traintop ${name} — ${command.summary}`, ''),
		'',
		'Usage',
		...command.usage.map(line => `${INDENT}${line}`),
		...notes,
		...(options.length === 0 ? [] : ['', 'Options', ...options.flatMap(o => optionLines(o, o.description))]),
	].join('\n');
}

/** `traintop help [COMMAND]`: the overview, or the command's help; an unknown name is refused with the nearest. */
function helpFor(name: string | undefined): string {
	if (name === undefined) return overviewHelp();
	if ((COMMAND_NAMES as readonly string[]).includes(name)) return commandHelp(name as CommandName);
	const nearest = closest(name, COMMAND_NAMES);
	throw new UsageError(
		`help ${name}: no such command${nearest === null ? '' : ` (did you mean ${nearest}?)`}; the commands: ${COMMAND_NAMES.join(', ')}`,
	);
}

/**
 * What --help, -h, `help [COMMAND]` or --version asked for: the help of the command on the line (`signal save --help`
 * is signal's, `--analyze --help` analyze's, none named: the overview), or the version.
 */
export function helpRequested(input: readonly string[], flags: Readonly<Record<string, unknown>>): string {
	const analyze = Boolean(flags.analyze);
	const [command, ...args] = input;
	const helpCommand = command === 'help' && !analyze;
	if (helpCommand && args[0] !== undefined) return helpFor(args[0]);
	// `help --help` is help's own help, as `signal --help` is signal's.
	if (flags.help) return helpFor(analyze ? 'analyze' : isCommandWord(command) ? command : undefined);
	return helpCommand ? overviewHelp() : traintopVersion();
}

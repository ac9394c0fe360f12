import meow from 'meow';
import {flagName} from '../config/options.js';
import {UsageError} from '../core/errors.js';
import {allOptions} from './commands.js';
import {unknownOptionError} from './suggest.js';

// argv → positional words and flags, by meow, with traintop's own rules for what meow would do its way:
//  - meow's autoHelp and autoVersion act only when `--help` / `--version` is the whole command line (its check is
//    `argv._.length === 0 && argv.length === 1`); with anything else beside it the flag was parsed and ignored, so
//    `traintop signal save --help --pid 1` signalled. Both are off here: -h/--help and -v/--version are ordinary
//    flags, and cli.ts answers them before any command runs.
//  - meow's unknown-flag check prints `Unknown flag` and exits by itself, with no `traintop:` and no suggestion.
//    Unknown flags are let through and refused here, named as typed, with the closest known flag.
//  - A switch (a boolean flag) takes no value. meow (yargs-parser) reads `--yes=banana` as false without a word,
//    eats a `true`/`false` word after a switch as its value, and takes `--no-log=false` for an unknown `noLog` flag
//    ("unknown option --no-log (did you mean --no-log?)"). Each of these is refused, naming the switch as written.

type MeowFlag = {type: 'string' | 'boolean'; shortFlag?: string};

export interface ParsedArgv {
	/** Positional words: the command, its arguments. */
	readonly input: string[];
	readonly flags: Record<string, unknown>;
}

function meowFlags(): Record<string, MeowFlag> {
	const flags: Record<string, MeowFlag> = {};
	for (const option of allOptions()) {
		// Numbers arrive as strings so a bad value can be quoted back as the user typed it.
		flags[option.name] = {
			type: option.kind === 'boolean' ? 'boolean' : 'string',
			...(option.short === undefined ? {} : {shortFlag: option.short}),
		};
	}
	return flags;
}

const camelCase = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The first of the flags meow parsed as `unknown` keys, as the user wrote it (`--hsots`, `-x`): a line is fixed from its left. */
function firstWritten(argv: readonly string[], unknown: ReadonlySet<string>): string | null {
	const end = argv.indexOf('--');
	for (const arg of end === -1 ? argv : argv.slice(0, end)) {
		if (arg.startsWith('--')) {
			const name = arg.slice(2).split('=')[0]!;
			if (unknown.has(camelCase(name)) || unknown.has(camelCase(name.replace(/^no-/, '')))) return `--${name}`;
		} else if (/^-[^\d]/.test(arg)) {
			const letter = [...arg.slice(1)].find(c => unknown.has(c));
			if (letter !== undefined) return `-${letter}`;
		}
	}
	return null;
}

/** `--yes=…`, `--no-log=…`, `--json false`: the first switch given a value, refused; a switch is given or left out. */
function refuseSwitchValues(argv: readonly string[]): void {
	const switches = new Set(
		allOptions()
			.filter(o => o.kind === 'boolean')
			.map(o => flagName(o.name).slice(2)),
	);
	const isSwitch = (name: string): boolean => switches.has(name) || switches.has(name.replace(/^no-/, ''));
	const end = argv.indexOf('--');
	const args = end === -1 ? argv : argv.slice(0, end);
	for (const [i, arg] of args.entries()) {
		if (!arg.startsWith('--')) continue;
		const equals = arg.indexOf('=');
		const name = arg.slice(2, equals === -1 ? undefined : equals);
		if (!isSwitch(name)) continue;
		const next = args[i + 1];
		let got: string | null = null;
		if (equals !== -1) got = arg;
		else if (next === 'true' || next === 'false') got = `${arg} ${next}`;
		if (got !== null)
			throw new UsageError(`--${name} takes no value (got ${got}): give --${name} alone, or leave it out`);
	}
}

export function parseArgv(argv: readonly string[], importMeta: ImportMeta): ParsedArgv {
	refuseSwitchValues(argv);
	let cli: ReturnType<typeof meow>;
	try {
		cli = meow({
			importMeta,
			argv: [...argv],
			description: false,
			flags: meowFlags(),
			autoHelp: false,
			autoVersion: false,
			allowUnknownFlags: true,
			// Absent booleans stay absent, so a config file's `"log": false` is not overridden by a default.
			booleanDefault: undefined,
		});
	} catch (error) {
		// meow's own refusals are usage errors too, said in traintop's words.
		const message = error instanceof Error ? error.message : String(error);
		const twice = /^The flag (--\S+) can only be set once\.$/.exec(message);
		throw new UsageError(twice ? `${twice[1]} given more than once (each option takes one value)` : message);
	}
	const known = new Set(allOptions().map(o => o.name));
	const unknown = new Set(Object.keys(cli.flags).filter(key => !known.has(key)));
	if (unknown.size > 0) {
		const first = [...unknown][0]!;
		throw unknownOptionError(firstWritten(argv, unknown) ?? (first.length === 1 ? `-${first}` : flagName(first)));
	}
	return {input: cli.input, flags: cli.flags as Record<string, unknown>};
}

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

export function parseArgv(argv: readonly string[], importMeta: ImportMeta): ParsedArgv {
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

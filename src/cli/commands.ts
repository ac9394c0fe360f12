import {PREFLIGHT_OPTIONS} from '../commands/preflight-options.js';
import type {OptionSpec} from '../config/option-spec.js';
import {OPTIONS} from '../config/options.js';
import {schedulers} from '../scheduler/registry.js';
import {COMMAND_NAMES, type CommandName} from './command-names.js';

// The commands of the command line, as help and completion describe them: a command's help is its usage and the
// options that name it (OptionSpec.commands), completion offers the same. Adding a command is one entry here (and
// its name in COMMAND_NAMES, cli/command-names.ts); options that live beside its code come in through `options`.

export {COMMAND_NAMES, type CommandName};

/** What completion offers for the words after a command (flags aside). */
export interface ArgumentCompletion {
	/** Words for its first argument (signal's actions, help's commands). */
	readonly first?: readonly string[];
	/** Paths for the rest (a RUN_DIR is a directory; --analyze reads files too). */
	readonly paths: 'dirs' | 'files' | 'none';
}

export interface CommandSpec {
	/** What it does, in a line: after `traintop NAME — ` in its help, and in the list of commands. */
	readonly summary: string;
	/** Its usage lines (each under 76 columns: help indents them by two and fits 80). */
	readonly usage: readonly string[];
	/** Paragraphs after the usage: what a reader must know before the options. */
	readonly notes?: readonly string[];
	/** Options of its own, defined beside its code; the parser and completion learn them from here. */
	readonly options?: readonly OptionSpec[];
	/** Options of OPTIONS it takes although their `commands` do not name it (a command added later). */
	readonly alsoTakes?: readonly string[];
	/** Typed as `traintop NAME`; false for the monitor (no word) and --analyze (a flag). */
	readonly isWord: boolean;
	readonly arguments: ArgumentCompletion;
}

/** Each scheduler's job flag with --agents, for the schedulers that start agents on their job's nodes. */
function agentsUsage(): string[] {
	return schedulers().flatMap(one => {
		const flag = one.agents && one.options?.find(option => option.name === one.jobFlag?.name);
		return flag ? [`${flag.usage} --agents`] : [];
	});
}

/** 'a, b or c'. */
function orList(words: readonly string[]): string {
	return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

export const COMMANDS: Readonly<Record<CommandName, CommandSpec>> = {
	monitor: {
		summary: 'watch a job: the TUI on a terminal, else status lines and the log',
		usage: [
			'traintop [RUN_DIR] [--pid P | --match RE] [options]',
			'traintop --headless [--json] [RUN_DIR]',
			['traintop [RUN_DIR] --hosts A,B,…', '--cluster FILE', ...agentsUsage()].join(' | '),
		],
		notes: [
			`Ranks are found among your processes that carry ${orList(['RANK', 'LOCAL_RANK', ...schedulers().flatMap(one => (one.tasks ? [one.tasks.rankVars.rank] : []))])} (or with --pid / --match), and grouped into jobs. On the TUI, ? lists its keys.`,
		],
		isWord: false,
		arguments: {paths: 'dirs'},
	},
	demo: {
		summary: 'a simulated 4-rank job and the monitor on it (q quits, the job stops)',
		usage: ['traintop demo [--headless] [options]'],
		isWord: true,
		arguments: {paths: 'none'},
	},
	ranks: {
		summary: 'the jobs, their ranks, workers and signal handlers',
		usage: ['traintop ranks [RUN_DIR] [--json] [--wide] [--job ID] [--pid P | --match RE]'],
		isWord: true,
		arguments: {paths: 'dirs'},
	},
	signal: {
		summary: "send a signal to ONE job's ranks, safely",
		usage: ['traintop signal save|emergency|SIG [RUN_DIR] [--job ID] [--rank N,N] [options]'],
		notes: [
			'A signal goes to one job: the only one, or the one RUN_DIR, --job, --pid or --match picks. Ranks without a handler for it are refused unless --force. save sends --save-signal, emergency --emergency-signal.',
		],
		isWord: true,
		arguments: {first: ['save', 'emergency'], paths: 'dirs'},
	},
	drill: {
		summary: "rehearse a preemption's save: the save signal, timed to its checkpoint, then the verdict",
		usage: ['traintop drill [RUN_DIR] [--job ID] [--grace S] [--json] [options]'],
		notes: [
			"Sends the save signal (--save-signal, never the emergency one) to one job's ranks as signal save --wait does, and never forces: a rank that would die of it, stop or ignore it refuses the drill. It times the new checkpoint, then says whether a preemption would find the job ready.",
		],
		alsoTakes: [
			'json',
			'pid',
			'match',
			'job',
			'yes',
			'saveSignal',
			'emergencySignal',
			'keep',
			'poll',
			'timeout',
			'nvidiaSmi',
			'readonly',
			'config',
		],
		isWord: true,
		arguments: {paths: 'dirs'},
	},
	stacks: {
		summary: "where each rank of ONE job is: its threads' Python frames (py-spy) or the kernel's view",
		usage: ['traintop stacks [RUN_DIR] [--job ID] [--pid P | --match RE] [--json]'],
		notes: [
			"Reads each rank of one job and each of its DataLoader workers, picked as signal picks them: py-spy dump --nonblocking when py-spy is on PATH (it never pauses a process), and the kernel's view always (state, wait channel, each thread's CPU; /proc/PID/stack as root). It sends no signal.",
		],
		alsoTakes: ['json', 'pid', 'match', 'job', 'config'],
		isWord: true,
		arguments: {paths: 'dirs'},
	},
	checkpoints: {
		summary: 'the checkpoint timeline, retention plan and disk headroom',
		usage: ['traintop checkpoints [RUN_DIR] [--json] [--keep N]'],
		isWord: true,
		arguments: {paths: 'dirs'},
	},
	preflight: {
		summary:
			"before launch: the DataLoader's host RAM against this node's, GPUs, disk for the next saves, preemption readiness",
		usage: [
			'traintop preflight [RUN_DIR] [--train-config FILE] [--preflight-keys K=PATH,…]',
			'                   [--workers N] [--prefetch-factor N] [--batch-size N]',
			'                   [--sample-shape CxHxW] [--dtype T] [--nproc-per-node N]',
			'                   [--batch-script FILE] [--run-dir DIR] [--grace S]',
		],
		notes: [
			"Run it on the node the job will run on (in the batch script, before srun): this machine's RAM is what it judges. Exit 4 when it will not fit, or when it is tight with --fail-on-breach.",
		],
		options: PREFLIGHT_OPTIONS,
		alsoTakes: [
			'json',
			'failOnBreach',
			'ramThreshold',
			'warnMargin',
			'gpuThreshold',
			'gpuThresholds',
			'nvidiaSmi',
			'keep',
			'saveSignal',
			'emergencySignal',
			'config',
		],
		isWord: true,
		arguments: {paths: 'dirs'},
	},
	agent: {
		summary: 'one node for a traintop that watches many',
		usage: ['traintop agent [RUN_DIR] [--pid P | --match RE] [--node-name NAME]'],
		notes: [
			'JSON Lines on stdout, commands on stdin; it exits when stdin closes. Started by --hosts, --cluster or --agents: rarely by hand.',
		],
		isWord: true,
		arguments: {paths: 'dirs'},
	},
	analyze: {
		summary: 'post-mortem of memory logs (files, globs, run dirs), a series per host',
		usage: ['traintop --analyze PATH... [--json | --markdown] [--plot FILE.svg] [options]'],
		isWord: false,
		arguments: {paths: 'files'},
	},
	completion: {
		summary: 'print a shell completion script (bash or zsh)',
		usage: ['traintop completion bash|zsh'],
		notes: [
			'bash, in ~/.bashrc:  source <(traintop completion bash)',
			'zsh:  traintop completion zsh > ~/.zfunc/_traintop  (with ~/.zfunc on fpath)',
		],
		isWord: true,
		arguments: {first: ['bash', 'zsh'], paths: 'none'},
	},
	help: {
		summary: "this help, or a command's",
		usage: ['traintop help [COMMAND]', 'traintop COMMAND --help'],
		isWord: true,
		arguments: {first: COMMAND_NAMES, paths: 'none'},
	},
};

/** The commands typed as a word after `traintop` (demo, ranks…), in help's order. */
export const COMMAND_WORDS: readonly CommandName[] = COMMAND_NAMES.filter(name => COMMANDS[name].isWord);

export function isCommandWord(word: string | undefined): word is CommandName {
	return COMMAND_WORDS.includes(word as CommandName);
}

/**
 * A command's options, in the table's order: those that name it, those it takes besides, then its own; and -h, which
 * every command takes (a command added later too).
 */
export function optionsOf(name: CommandName): OptionSpec[] {
	const command = COMMANDS[name];
	const shared = OPTIONS.filter(
		o => o.commands.includes(name) || command.alsoTakes?.includes(o.name) || o.name === 'help',
	);
	return [...shared, ...(command.options ?? [])];
}

/** Every option the command line knows: the table's and the commands' own (each once, by name). */
export function allOptions(): OptionSpec[] {
	const byName = new Map<string, OptionSpec>();
	for (const option of [...OPTIONS, ...COMMAND_NAMES.flatMap(name => COMMANDS[name].options ?? [])])
		if (!byName.has(option.name)) byName.set(option.name, option);
	return [...byName.values()];
}

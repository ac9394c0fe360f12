import {loadSettings} from '../config/load.js';
import {selectorFromFlags} from '../config/selection.js';
import {UsageError} from '../core/errors.js';
import type {ParsedArgv} from './argv.js';
import type {Call, SettledCall} from './call.js';
import {type CommandName, isCommandWord} from './commands.js';
import {
	analyzeEntry,
	checkpointsEntry,
	completionEntry,
	drillEntry,
	helpEntry,
	preflightEntry,
	ranksEntry,
	signalEntry,
	stacksEntry,
} from './once-entries.js';
import {agentEntry, demoEntry, monitorEntry} from './watch-entries.js';

// The command line's one dispatch: which command a command line names, and each command's entry. A command that
// reads no settings (help, completion) answers before the config file is read; the others get the settings.

type Entry =
	| {readonly settled: false; readonly run: (call: Call) => Promise<number>}
	| {readonly settled: true; readonly run: (call: SettledCall) => Promise<number>};

/** --host picks a host of the logs --analyze reads; anywhere else, a typo for --hosts would quietly watch this machine. */
const refusingHost =
	(run: (call: SettledCall) => Promise<number>) =>
	(call: SettledCall): Promise<number> => {
		if (call.cli.flags.host !== undefined)
			throw new UsageError('--host NAME goes with --analyze (to watch nodes: --hosts A,B,…)');
		return run(call);
	};

const COMMAND_TABLE: Readonly<Record<CommandName, Entry>> = {
	help: {settled: false, run: helpEntry},
	completion: {settled: false, run: completionEntry},
	analyze: {settled: true, run: analyzeEntry},
	demo: {settled: true, run: refusingHost(demoEntry)},
	ranks: {settled: true, run: refusingHost(ranksEntry)},
	checkpoints: {settled: true, run: refusingHost(checkpointsEntry)},
	preflight: {settled: true, run: refusingHost(preflightEntry)},
	agent: {settled: true, run: refusingHost(agentEntry)},
	signal: {settled: true, run: refusingHost(signalEntry)},
	drill: {settled: true, run: refusingHost(drillEntry)},
	stacks: {settled: true, run: refusingHost(stacksEntry)},
	monitor: {settled: true, run: refusingHost(monitorEntry)},
};

/**
 * --help, -h and --version answer before anything else: no setting is read, no process started, no signal sent
 * (`signal save --help --pid P` once signalled P). --analyze comes next, whatever the first word; then a command
 * word; anything else is the monitor (a first word is its RUN_DIR).
 */
function commandOf(cli: ParsedArgv): CommandName {
	if (cli.flags.help || cli.flags.version) return 'help';
	if (cli.flags.analyze) return 'analyze';
	const word = cli.input[0];
	return isCommandWord(word) ? word : 'monitor';
}

/** Runs the command the command line names; its exit code. */
export async function runCommandLine(cli: ParsedArgv, exitNow: () => never): Promise<number> {
	const entry = COMMAND_TABLE[commandOf(cli)];
	const call: Call = {cli, args: cli.input.slice(1), exitNow};
	if (!entry.settled) return entry.run(call);
	const {settings, given} = await loadSettings(cli.flags);
	const selector = selectorFromFlags(cli.flags);
	return entry.run({...call, settings, given, selector, json: Boolean(cli.flags.json)});
}

import {parseSignalName} from './signals.js';

// torch's elastic agent (torchrun, `python -m torch.distributed.run`, its deprecated wrapper torch.distributed.launch,
// accelerate's multi-GPU launch), as its code handles a signal (docs/launchers.md):
// - PContext.start() (torch/distributed/elastic/multiprocessing/api.py) installs _terminate_process_handler for
//   SIGTERM, SIGINT, SIGHUP and SIGQUIT; since pytorch PR #160690 (Aug 2025) for the names in
//   TORCHELASTIC_SIGNALS_TO_HANDLE, which launch_agent sets from `--signals-to-handle` (same default).
// - The handler raises SignalException; the agent's run() calls _shutdown(e.sigval): that signal to every worker, then
//   close(death_sig, timeout=30) SIGKILLs those still running 30 s later. Since pytorch PR #172596 (merged Mar 2026)
//   the 30 is `--shutdown-timeout`, else TORCH_ELASTIC_SHUTDOWN_TIMEOUT, else 30.
// - A failed worker is raised as ChildFailedError out of main(): the agent exits 1, whatever the worker's code.
// The command line's options prove a torch that has them (argparse refuses an unknown one); a variable does not: an
// older torch ignores it.

/** Variables of the agent's environment that its code reads for these (`PET_*`: argparse_util.env, the flags' defaults). */
export const TORCH_VARIABLES = ['TORCH_ELASTIC_SHUTDOWN_TIMEOUT', 'PET_SHUTDOWN_TIMEOUT', 'PET_SIGNALS_TO_HANDLE'];

/**
 * Where a torch that reads each variable says so in its source (relative to the torch package): the option whose
 * `PET_*` default it is, or the variable's name.
 */
export const TORCH_CODE_MARKS: Readonly<Record<string, {readonly file: string; readonly text: string}>> = {
	TORCH_ELASTIC_SHUTDOWN_TIMEOUT: {file: 'distributed/launcher/api.py', text: 'TORCH_ELASTIC_SHUTDOWN_TIMEOUT'},
	PET_SHUTDOWN_TIMEOUT: {file: 'distributed/run.py', text: '--shutdown-timeout'},
	PET_SIGNALS_TO_HANDLE: {file: 'distributed/run.py', text: '--signals-to-handle'},
};

/** The signals every torch since 1.13 handles by default. */
export const TORCH_SIGNALS: readonly string[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'];
const KILL_AFTER_S = 30;
const SOURCE =
	'torch 1.13 to main torch/distributed/elastic/multiprocessing/api.py (PContext.start, close timeout=30), ' +
	'launcher/api.py (ChildFailedError: exit 1)';
const OPTIONS_SOURCE = 'torch main (0580428) torch/distributed/run.py --signals-to-handle, --shutdown-timeout';

/** run.py's options that take no value (1.13 to main, and launch.py's --use-env); every other one takes one. */
const FLAGS = new Set([
	'--standalone',
	'-m',
	'--module',
	'--no-python',
	'--no_python',
	'--run-path',
	'--run_path',
	'--virtual-local-rank',
	'--virtual_local_rank',
	'--use-env',
	'--use_env',
]);

/** The options before the script: name → value ('' for a flag). argparse reads none after the script. */
function leadingOptions(args: readonly string[]): Map<string, string> {
	const options = new Map<string, string>();
	for (let i = 0; i < args.length; i++) {
		const arg = args[i]!;
		if (!arg.startsWith('-') || arg === '-' || arg === '--') break;
		const equals = arg.indexOf('=');
		if (equals > 0) options.set(arg.slice(0, equals), arg.slice(equals + 1));
		else if (FLAGS.has(arg)) options.set(arg, '');
		else options.set(arg, args[++i] ?? '');
	}
	return options;
}

const optionOf = (options: ReadonlyMap<string, string>, name: string): string | undefined =>
	options.get(`--${name}`) ?? options.get(`--${name.replaceAll('-', '_')}`);

/** torch registers each listed name with getattr(signal, name.strip()): only a signal's full name counts. */
const signalList = (text: string): string[] =>
	text
		.split(',')
		.map(s => s.trim())
		.filter(s => parseSignalName(s) === s);

const seconds = (text: string | undefined): number | null =>
	text !== undefined && /^\s*\d+\s*$/.test(text) ? Number(text) : null;

export interface TorchTraits {
	readonly forwards: readonly string[];
	readonly killAfterS: number;
	readonly source: string;
}

/** Where a variable stands: the launcher's torch reads it, ignores it, or its code was not read. */
type Reading = 'read' | 'ignored' | 'unknown';

/**
 * What the agent does, from its options and the variables of its environment (those of TORCH_VARIABLES set), with
 * those its installed torch reads (`reads`; null: its code was not read, or before launch). A variable whose reading
 * is unknown counts for a timeout only where it is shorter than 30 s (a torch that ignores it kills at 30 s: the ranks
 * get no more than the shorter either way), and its signal list as given (a running agent's dispositions settle it).
 */
export function torchTraits(
	args: readonly string[],
	variables: Readonly<Record<string, string>>,
	reads: readonly string[] | null,
): TorchTraits {
	const reading = (name: string): Reading => (reads === null ? 'unknown' : reads.includes(name) ? 'read' : 'ignored');
	const counted = (name: string) => (reading(name) === 'ignored' ? undefined : variables[name]);
	const options = leadingOptions(args);
	const listed = optionOf(options, 'signals-to-handle') ?? counted('PET_SIGNALS_TO_HANDLE');
	const flag = seconds(optionOf(options, 'shutdown-timeout'));
	// The option's PET_ default comes first; LaunchConfig reads TORCH_ELASTIC_SHUTDOWN_TIMEOUT only without it.
	const name = ['PET_SHUTDOWN_TIMEOUT', 'TORCH_ELASTIC_SHUTDOWN_TIMEOUT'].find(n => seconds(counted(n)) !== null);
	const variable = name === undefined ? null : seconds(variables[name]);
	const killAfterS =
		flag ??
		(variable === null ? KILL_AFTER_S : reading(name!) === 'read' ? variable : Math.min(variable, KILL_AFTER_S));
	const ignored = TORCH_VARIABLES.filter(n => variables[n] !== undefined && reading(n) === 'ignored');
	const notes = [
		listed !== undefined || flag !== null || variable !== null ? OPTIONS_SOURCE : null,
		ignored.length > 0 ? `this torch does not read ${ignored.join(', ')}` : null,
	];
	return {
		forwards: listed === undefined ? TORCH_SIGNALS : signalList(listed),
		killAfterS,
		source: [SOURCE, ...notes].filter(Boolean).join('; '),
	};
}

import type {Job, LauncherProcess} from '../core/job-types.js';
import type {LauncherFacts} from '../core/readiness.js';
import {type LauncherCommand, launcherFromArgv, shellCommands} from './launcher-command.js';
import {TORCH_SIGNALS, TORCH_VARIABLES, torchTraits} from './launcher-torch.js';

// What the launcher between a preemption's signal and the ranks does with it, as the launcher's own code does it
// (docs/launchers.md has the code read, file by file). Each figure here is one that code fixes; a launcher or a way of
// running one whose code was not read is null, never a guess.

/** A launcher's behaviour as its code and command line fix it, before (or apart from) the running process. */
export type LauncherTraits = Omit<LauncherFacts, 'pid' | 'signals'>;

type Disposition = NonNullable<LauncherFacts['signals']>[string];

/**
 * DeepSpeed's per-node launcher: sigkill_handler for SIGINT and SIGTERM runs terminate_process_tree on each rank in
 * turn (SIGTERM to the rank and its descendants, psutil.wait_procs(timeout=30), then SIGKILL), then sys.exit(1). The
 * ranks get SIGTERM whichever of the two came.
 */
const DEEPSPEED: LauncherTraits = {
	name: 'deepspeed',
	forwards: ['SIGTERM', 'SIGINT'],
	killAfterS: 30,
	source: 'DeepSpeed 0.16.5 (38327e0) deepspeed/launcher/launch.py (sigkill_handler, terminate_process_tree)',
	exitCode: 1,
};

/**
 * accelerate's single-process launch: simple_launcher runs the script with subprocess.Popen and waits; it installs no
 * handler, so SIGTERM ends it (the script runs on, orphaned), and a failed script is raised as CalledProcessError
 * (exit 1).
 */
const ACCELERATE_SIMPLE: LauncherTraits = {
	name: 'accelerate launch',
	forwards: [],
	killAfterS: null,
	source: 'accelerate 1.15.0.dev0 (16cb6eb) src/accelerate/commands/launch.py (simple_launcher)',
	exitCode: 1,
};
const ACCELERATE_ELASTIC_SOURCE = 'accelerate 1.15.0.dev0 (16cb6eb) commands/launch.py (multi_gpu_launcher)';

/** accelerate's words before its script (the first `.py`): the script's own come after. */
function accelerateOptions(args: readonly string[]): readonly string[] {
	const script = args.findIndex(a => a.endsWith('.py'));
	return script < 0 ? args : args.slice(0, script);
}

/** accelerate's options that decide the torch agent from the command line alone (else its config file decides). */
function accelerateRunsTorch(args: readonly string[]): boolean | null {
	const before = accelerateOptions(args);
	const has = (flag: string) => before.some(a => a === flag || a === flag.replaceAll('_', '-'));
	if (has('--cpu')) return null;
	const machines = before.find((a, i) => before[i - 1] === '--num_machines' || a.startsWith('--num_machines='));
	const oneMachine = machines === undefined || machines.replace('--num_machines=', '') === '1';
	if (has('--multi_gpu') || has('--use_fsdp') || has('--use_megatron_lm')) return true;
	if (has('--use_deepspeed')) return oneMachine ? true : null;
	return null;
}

/**
 * Does the `deepspeed` runner's command run on one node (runner.py: `--no_ssh`, `--num_nodes 1`, or no hostfile,
 * `--force_multi` or host list of its own)? A hostfile at its default path, /job/hostfile, is not looked for.
 */
function deepspeedOneNode(args: readonly string[]): boolean {
	const value = (name: string) => {
		const at = args.findIndex(a => a === name || a.startsWith(`${name}=`));
		return at < 0 ? undefined : args[at]!.includes('=') ? args[at]!.slice(name.length + 1) : (args[at + 1] ?? '');
	};
	if (args.includes('--no_ssh')) return true;
	const nodes = value('--num_nodes');
	if (nodes !== undefined) return nodes === '1';
	const hosts = `${value('--include') ?? ''}${value('--exclude') ?? ''}`;
	return !args.includes('--force_multi') && value('--hostfile') === undefined && !hosts.includes('@');
}

/** The variables of a launcher's environment that its code reads for what it does with a signal (discovery keeps them). */
export const LAUNCHER_VARIABLES: readonly string[] = TORCH_VARIABLES;

/** Traits, and the signals the running process may handle besides (an older torch ignores a variable's list). */
type Traits = LauncherTraits & {readonly mayHandle: readonly string[]};

/** The launcher's variables that are set, and those its installed code reads (null: not read, or before launch). */
interface Environment {
	readonly variables: Readonly<Record<string, string>>;
	readonly reads: readonly string[] | null;
}

function torch(name: string, args: readonly string[], env: Environment, via?: string): Traits {
	const traits = torchTraits(args, env.variables, env.reads);
	return {
		name,
		forwards: traits.forwards,
		killAfterS: traits.killAfterS,
		source: via ? `${via}; ${traits.source}` : traits.source,
		exitCode: 1,
		mayHandle: TORCH_SIGNALS,
	};
}

/**
 * The traits of the launcher a command runs, with the variables it runs with. `torchAgent`: whether the running process
 * is proven a torch elastic agent (its ranks carry its TORCHELASTIC_RUN_ID), which decides accelerate's; null before
 * launch, from the command alone.
 */
function traitsOf(command: LauncherCommand, env: Environment, torchAgent: boolean | null): Traits | null {
	const {program, args} = command;
	switch (program) {
		case 'torchrun':
			return torch(program, args, env);
		case 'torch.distributed.launch':
			// Since torch 1.9 a wrapper of run.py (its ranks carry the agent's TORCHELASTIC_RUN_ID); before, a loop of
			// Popen without the agent: not read.
			return torchAgent === false ? null : torch(program, args, env);
		case 'deepspeed.launcher.launch':
			// With --enable_elastic_training it runs DeepSpeed's elastic agent instead: not read.
			return args.includes('--enable_elastic_training') ? null : {...DEEPSPEED, mayHandle: []};
		case 'deepspeed':
			// The runner starts the per-node launcher under it on one node; over several, pdsh, srun or mpirun does (and
			// its own handler then): not read. Running, the runner is never the ranks' parent: the per-node launcher is.
			return torchAgent === null && deepspeedOneNode(args) ? {...DEEPSPEED, mayHandle: []} : null;
		case 'accelerate launch': {
			// On TPUs it spawns through torch_xla: not read.
			if (accelerateOptions(args).includes('--tpu')) return null;
			const agent = torchAgent ?? accelerateRunsTorch(args);
			if (agent === null) return null;
			return agent ? torch(program, [], env, ACCELERATE_ELASTIC_SOURCE) : {...ACCELERATE_SIMPLE, mayHandle: []};
		}
	}
}

const withoutMay = ({mayHandle: _, ...traits}: Traits): LauncherTraits => traits;

/**
 * The launcher a batch script's line runs (`srun --ntasks 1 torchrun --nproc_per_node 2 train.py`), found past
 * wrappers, their options and variable assignments (which count as its environment), in the first of the line's
 * commands that runs one; null when none does or the line alone cannot tell what it does (accelerate reading its
 * config file).
 */
export function launcherFromCommand(commandLine: string): LauncherTraits | null {
	for (const words of shellCommands(commandLine)) {
		const command = launcherFromArgv(words);
		if (command === null) continue;
		const traits = traitsOf(command, {variables: command.assigned, reads: null}, null);
		return traits && withoutMay(traits);
	}
	return null;
}

/** The launcher's own dispositions, those well formed (an agent's message is input). */
function dispositionsOf(launcher: LauncherProcess): Readonly<Record<string, Disposition>> | null {
	const read: unknown = launcher.signals;
	if (read === undefined || read === null || typeof read !== 'object') return null;
	const out: Record<string, Disposition> = {};
	for (const [signal, state] of Object.entries(read)) {
		const disposition = (state as {disposition?: unknown} | null)?.disposition;
		if (disposition === 'handled' || disposition === 'ignored' || disposition === 'default') out[signal] = disposition;
	}
	return out;
}

/** The launcher's variables that were read and those its code reads, those well formed. */
function environmentOf(launcher: LauncherProcess): Environment {
	const read: unknown = launcher.variables;
	const variables =
		read === undefined || read === null || typeof read !== 'object'
			? {}
			: Object.fromEntries(Object.entries(read).filter(([, value]) => typeof value === 'string'));
	const reads: unknown = launcher.reads;
	return {
		variables,
		reads: Array.isArray(reads) ? reads.filter((name): name is string => typeof name === 'string') : null,
	};
}

/**
 * The launcher's facts for a job, or null when its launcher is none whose code traintop has read. Its command line
 * (from /proc) names it; its dispositions, when read, decide what it passes on now: a signal its code may handle and
 * it has a handler for (a signal without one, not yet installed or replaced, is not passed on; `signals` says what
 * the launcher itself does with it).
 */
export function launcherFacts(job: Job): LauncherFacts | null {
	const launcher = job.launcher;
	if (launcher === null) return null;
	const command = launcherFromArgv(launcher.cmd.split(' ').filter(word => word !== ''));
	const traits = command && traitsOf(command, environmentOf(launcher), job.identity === 'elastic');
	if (!traits) return null;
	const signals = dispositionsOf(launcher);
	const facts = withoutMay(traits);
	if (signals === null) return {...facts, pid: launcher.pid};
	const candidates = [...new Set([...traits.forwards, ...traits.mayHandle])];
	const forwards = candidates.filter(
		s => signals[s] === 'handled' || (signals[s] === undefined && traits.forwards.includes(s)),
	);
	return {...facts, forwards, pid: launcher.pid, signals};
}

import path from 'node:path';
import {taskSchedulers} from '../scheduler/kinds.js';

// What a process's program is, from its argv and comm: which programs can never be a rank (a shell that
// inherited a scheduler's task index is not one) and which are never offered as a launcher.

/** Shells: a batch script's `bash` carries the scheduler's task index, an interactive shell may carry RANK; neither trains. */
const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'fish', 'ksh', 'mksh', 'tcsh', 'csh', 'ash', 'busybox']);

/**
 * Never a rank, whatever the environment: terminals and session managers, package runners, nvidia-smi (a child of
 * a traintop that runs in a scheduler's step inherits its task's variables), and traintop itself; and each
 * scheduler's own programs (its launcher, its step daemon: schedulerProgram).
 */
const NEVER_A_RANK = new Set([
	...SHELLS,
	'tmux',
	'tmux: server',
	'screen',
	'SCREEN',
	'sshd',
	'ssh',
	'login',
	'su',
	'sudo',
	'nohup',
	'setsid',
	'env',
	'timeout',
	'npm',
	'npx',
	'nvidia-smi',
	'traintop',
]);

/**
 * Launchers and runners: they start the ranks (and may carry a scheduler's task index, as torchrun in a step does)
 * but are not ranks themselves; launchers are offered as a job's launcher.
 */
const LAUNCHERS = new Set([
	'torchrun',
	'torch.distributed.run',
	'torch.distributed.launch',
	'deepspeed',
	'accelerate',
	'mpirun',
	'mpiexec',
	'orterun',
	'prterun',
	'hydra_pmi_proxy',
	'uv',
	'conda',
	'mamba',
	'micromamba',
	'poetry',
	'pipenv',
	'pdm',
	'hatch',
]);

/** Never offered as a launcher: ancestors of everything the user starts, whose signal would take down far more. */
const NEVER_A_LAUNCHER = new Set([...NEVER_A_RANK, 'systemd', 'init']);

/** Ranks start with these, Python launchers too: the script or module after them names the program. */
const INTERPRETER = /^(python|pypy)[\d.]*$/;

export interface ProgramFacts {
	readonly argv: readonly string[];
	/** /proc/PID/comm (15 characters at most); absent where not read. */
	readonly comm?: string;
}

/** `bash`, `-bash` (a login shell), `/usr/bin/srun` → the program's own name. */
function base(word: string | undefined): string {
	return path.basename((word ?? '').replace(/^-/, ''));
}

/**
 * A traintop process: one that set its title (`traintop …`, comm `traintop --head`), or node running
 * traintop's cli (`node …/traintop/dist/cli.js`, `node …/.bin/traintop`), or npm/npx running it.
 */
export function isTraintop({argv, comm}: ProgramFacts): boolean {
	if (comm?.startsWith('traintop') || base(argv[0]).startsWith('traintop')) return true;
	if (base(argv[0]) !== 'node' && base(argv[0]) !== 'nodejs') return false;
	const script = argv[1] ?? '';
	return base(script) === 'traintop' || /traintop[^/]*\/dist\/cli\.js$/.test(script);
}

/** The program's name: the command, or the script / module an interpreter runs (`torchrun`, `train.py`, `deepspeed`). */
export function programName({argv}: ProgramFacts): string {
	const first = base(argv[0]);
	if (!INTERPRETER.test(first)) return first;
	for (let i = 1; i < argv.length; i++) {
		const word = argv[i]!;
		if (word === '-m') return argv[i + 1] ?? first;
		if (word === '-c') return first;
		if (!word.startsWith('-')) return base(word);
	}
	return first;
}

/** The names a process goes by: comm, argv[0] (a daemon's title `daemon: [42.0]` as `daemon` too), the program run. */
function names(facts: ProgramFacts): string[] {
	const first = base(facts.argv[0]);
	return [first, first.split(':')[0]!, programName(facts), ...(facts.comm === undefined ? [] : [facts.comm])];
}

/** One of a scheduler's own programs (srun, its step daemon…): never a rank, never a launcher. */
function schedulerProgram(name: string): boolean {
	return taskSchedulers().some(one => one.programs.includes(name));
}

/** A scheduler's step daemon (root's), by its comm: its title names the step of the tasks under it. */
export function isStepDaemon(comm: string): boolean {
	return taskSchedulers().some(one => one.stepDaemon.comm === comm);
}

/** A process that can carry a rank: not a shell, not a scheduler's, not traintop, not a runner of other programs. */
export function canBeRank(facts: ProgramFacts): boolean {
	return (
		!isTraintop(facts) &&
		!names(facts).some(name => NEVER_A_RANK.has(name) || LAUNCHERS.has(name) || schedulerProgram(name))
	);
}

/**
 * A step's launcher (a scheduler's: srun): never a rank (above), but the step's forwarder, which passes a signal on
 * to every task of the step on every node. Its /proc disposition may read "blocked, no handler" for every signal
 * because a dedicated thread takes them with sigwait(2); that is how it forwards, not a sign that it would die.
 */
export function isStepForwarder(facts: ProgramFacts): boolean {
	const first = base(facts.argv[0]);
	return taskSchedulers().some(one => first === one.launcher || facts.comm === one.launcher);
}

/** A shell: it starts what the user types, so ranks it started in one session are one start (ranks/job-proof.ts). */
export function isShell(facts: ProgramFacts): boolean {
	return names(facts).some(name => SHELLS.has(name));
}

/** init or systemd (a subreaper): the parent an orphan is handed to, which ties nothing together. */
export function isReaper(facts: ProgramFacts): boolean {
	return names(facts).some(name => name === 'systemd' || name === 'init');
}

/**
 * A process `--match` may take as a rank without rank variables: Python (every launcher traintop knows runs it, and
 * Lightning's rank 0 sets its variables only after starting) — not `tail -f train.log` or `vim train.py`, whose
 * command lines match as well. Anything else needs rank variables, a GPU open (discover.ts) or `--pid`.
 */
export function runsPython(facts: ProgramFacts): boolean {
	return INTERPRETER.test(base(facts.argv[0])) || (facts.comm !== undefined && INTERPRETER.test(facts.comm));
}

export function canBeLauncher(facts: ProgramFacts): boolean {
	return !isTraintop(facts) && !names(facts).some(name => NEVER_A_LAUNCHER.has(name) || schedulerProgram(name));
}

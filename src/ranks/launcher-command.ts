// Which launcher a command runs, read from its words: a batch script's line before launch (`srun torchrun …`), or a
// running launcher's argv from /proc (`/usr/bin/python3 -m torch.distributed.run …`). Pure: no process is read.
// A program it does not name is no launcher (null), never a guess: a shell, a script, `python train.py`.

/** The launchers whose code traintop has read (docs/launchers.md). */
export type LauncherProgram =
	| 'torchrun'
	| 'torch.distributed.launch'
	| 'deepspeed'
	| 'deepspeed.launcher.launch'
	| 'accelerate launch';

export interface LauncherCommand {
	readonly program: LauncherProgram;
	/** Its arguments after the program (and after `launch` for accelerate): its options, the script, the script's. */
	readonly args: readonly string[];
	/** Variables the words assign before it (`FOO=1 torchrun …`, `env FOO=1 …`), the last one of a name winning. */
	readonly assigned: Readonly<Record<string, string>>;
}

/**
 * Programs that run the command after their own options and assignments: the launcher is looked for past them.
 * Their option values and words (`srun -n 2`, `timeout 10m`, `apptainer exec --nv image.sif`) are passed over as they
 * cannot be a launcher's name. What the wrapper itself does with a signal is not this table's.
 */
const WRAPPERS = new Set([
	'srun',
	'exec',
	'env',
	'nohup',
	'time',
	'stdbuf',
	'numactl',
	'taskset',
	'nice',
	'ionice',
	'timeout',
	'setsid',
	'apptainer',
	'singularity',
]);

/** Programs that run what follows as a script of their own: what they run is not read. */
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'fish', 'source', '.', 'eval']);

/** Python's own options that take a value (`-W ignore`, `-X dev`): its module or script comes after. */
const PYTHON_VALUE_OPTIONS = new Set(['-W', '-X', '--check-hash-based-pycs']);

/** Modules run with `python -m` that are a launcher; the runner of DeepSpeed's `deepspeed` is one of them. */
const MODULES: Readonly<Record<string, LauncherProgram>> = {
	'torch.distributed.run': 'torchrun',
	'torch.distributed.launch': 'torch.distributed.launch',
	'deepspeed.launcher.runner': 'deepspeed',
	'deepspeed.launcher.launch': 'deepspeed.launcher.launch',
	'accelerate.commands.launch': 'accelerate launch',
};

const baseName = (word: string): string => word.slice(word.lastIndexOf('/') + 1);
const isPython = (word: string): boolean => /^python[\d.]*$/.test(baseName(word));
const isAssignment = (word: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);

/** A launcher named as a program: its console scripts (`torchrun`, `deepspeed` and `ds`, `accelerate launch`). */
function scriptLauncher(words: readonly string[], at: number): Omit<LauncherCommand, 'assigned'> | null {
	const name = baseName(words[at] ?? '');
	if (name === 'torchrun') return {program: 'torchrun', args: words.slice(at + 1)};
	if (name === 'deepspeed' || name === 'ds') return {program: 'deepspeed', args: words.slice(at + 1)};
	if (name === 'accelerate')
		return words[at + 1] === 'launch' ? {program: 'accelerate launch', args: words.slice(at + 2)} : null;
	return null;
}

/** `python [options] -m MODULE …` or `python [options] SCRIPT …` where SCRIPT is a launcher's console script. */
function pythonLauncher(words: readonly string[], at: number): Omit<LauncherCommand, 'assigned'> | null {
	let i = at + 1;
	while (i < words.length) {
		const word = words[i]!;
		if (word === '-m' || (word.startsWith('-m') && !word.startsWith('--'))) {
			const module = word === '-m' ? words[i + 1] : word.slice(2);
			const program = module === undefined ? undefined : MODULES[module];
			return program ? {program, args: words.slice(word === '-m' ? i + 2 : i + 1)} : null;
		}
		if (word === '-c' || word === '-') return null;
		if (!word.startsWith('-')) return scriptLauncher(words, i);
		i += PYTHON_VALUE_OPTIONS.has(word) ? 2 : 1;
	}
	return null;
}

/** The launcher the words run, looking past wrappers and variable assignments; null when they run another program. */
export function launcherFromArgv(words: readonly string[]): LauncherCommand | null {
	let wrapped = false;
	const assigned: Record<string, string> = {};
	const found = (command: Omit<LauncherCommand, 'assigned'> | null) => command && {...command, assigned};
	for (let i = 0; i < words.length; i++) {
		const word = words[i]!;
		if (isAssignment(word)) {
			const equals = word.indexOf('=');
			assigned[word.slice(0, equals)] = word.slice(equals + 1);
			continue;
		}
		const name = baseName(word);
		if (isPython(word)) return found(pythonLauncher(words, i));
		const script = scriptLauncher(words, i);
		if (script !== null || name === 'accelerate') return found(script);
		if (SHELLS.has(name)) return null;
		if (WRAPPERS.has(name)) {
			wrapped = true;
			continue;
		}
		// Past a wrapper, its options and their values; anything else first is the program, and not a launcher.
		if (!wrapped) return null;
	}
	return null;
}

/**
 * A shell line's commands, each as its words, as far as a launcher's name and options need: quotes group (their
 * contents kept as they are), a backslash escapes the next character, a `#` starting a word starts a comment, and
 * `;`, `&&`, `||`, `|` and `&` end a command. No expansion: `$VAR` stays as written.
 */
export function shellCommands(line: string): string[][] {
	const commands: string[][] = [];
	let words: string[] = [];
	let word = '';
	let started = false;
	let quote: '"' | "'" | null = null;
	const endWord = () => {
		if (started) words.push(word);
		word = '';
		started = false;
	};
	const endCommand = () => {
		endWord();
		if (words.length > 0) commands.push(words);
		words = [];
	};
	for (let i = 0; i < line.length; i++) {
		const c = line[i]!;
		if (quote !== null) {
			if (c === quote) quote = null;
			else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
			else word += c;
			continue;
		}
		if (c === '"' || c === "'") {
			quote = c;
			started = true;
		} else if (c === '\\' && i + 1 < line.length) {
			word += line[++i];
			started = true;
		} else if (/\s/.test(c)) endWord();
		else if (c === '#' && !started) break;
		else if (c === ';' || c === '&' || c === '|') endCommand();
		else {
			word += c;
			started = true;
		}
	}
	endCommand();
	return commands;
}

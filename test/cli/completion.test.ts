import {execFileSync, spawnSync} from 'node:child_process';
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {allOptions, COMMAND_NAMES, COMMAND_WORDS, optionsOf} from '../../src/cli/commands.js';
import {runCli} from '../helpers/run-cli.js';

// `traintop completion bash|zsh` from the built binary, loaded into a real shell and asked for candidates the way
// the shell's completion would: COMP_WORDS / COMP_CWORD for bash, words / CURRENT for zsh. What it offers must be
// the option table's, command by command.

let dir: string;
/** The working directory of the shells: a run dir and a file to complete. */
let cwd: string;
let bashScript: string;
let zshScript: string;
beforeAll(async () => {
	dir = mkdtempSync(path.join(tmpdir(), 'traintop-completion-'));
	cwd = path.join(dir, 'cwd');
	mkdirSync(path.join(cwd, 'runs', 'exp1'), {recursive: true});
	writeFileSync(path.join(cwd, 'cluster.yaml'), 'nodes: []\n');
	for (const shell of ['bash', 'zsh']) {
		const {code, stdout} = await runCli(['completion', shell]);
		expect(code).toBe(0);
		writeFileSync(path.join(dir, `traintop.${shell}`), stdout);
	}
	bashScript = path.join(dir, 'traintop.bash');
	zshScript = path.join(dir, 'traintop.zsh');
});
afterAll(() => rmSync(dir, {recursive: true, force: true}));

/** A flag as the table writes it, its long form: `--no-log`, `--help` for `-h, --help`. */
const written = (usage: string): string => /--[a-z-]+/.exec(usage)![0];
const flagsOf = (name: (typeof COMMAND_NAMES)[number]): string[] => optionsOf(name).map(o => written(o.usage));

/** What bash offers for the command line `words` (the last one is being completed). */
function bash(...words: string[]): string[] {
	const script = [
		'source "$1"; shift',
		`COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=\${#COMP_LINE}`,
		`_traintop traintop "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"`,
		`printf "%s\\n" "\${COMPREPLY[@]}"`,
	].join('\n');
	const out = execFileSync('bash', ['--norc', '--noprofile', '-c', script, 'bash', bashScript, 'traintop', ...words], {
		cwd,
		encoding: 'utf8',
	});
	return out.split('\n').filter(Boolean).sort();
}

describe('bash', () => {
	test('sourcing it registers _traintop for traintop', () => {
		const out = execFileSync(
			'bash',
			['--norc', '--noprofile', '-c', 'source "$1"; complete -p traintop', 'bash', bashScript],
			{
				encoding: 'utf8',
			},
		);
		expect(out.trim()).toBe('complete -F _traintop traintop');
	});

	test('the first word: the commands and the directories (a RUN_DIR)', () => {
		expect(bash('')).toEqual([...COMMAND_WORDS, 'runs'].sort());
		expect(bash('sig')).toEqual(['signal']);
		expect(bash('c')).toEqual(['checkpoints', 'completion']);
		// A flag's value is skipped on the way to the command.
		expect(bash('--pid', '5', 'sig')).toEqual(['signal']);
	});

	test.each(COMMAND_WORDS)("after %s, `--` offers exactly that command's options from the table", name => {
		const offered = bash(name, '--');
		expect(offered).toEqual(flagsOf(name).sort());
		expect(offered.length).toBeGreaterThan(0);
	});

	test('before any command every flag is offered; after --analyze and a RUN_DIR, their own', () => {
		expect(bash('--')).toEqual(
			allOptions()
				.map(o => written(o.usage))
				.sort(),
		);
		expect(bash('--analyze', 'x.jsonl', '--')).toEqual(flagsOf('analyze').sort());
		expect(bash('runs/exp1', '--')).toEqual(flagsOf('monitor').sort());
		expect(bash('ranks', '--w')).toEqual(['--wide']);
		expect(bash('runs/exp1', '--no-l')).toEqual(['--no-log']);
		expect(bash('signal', 'save', '--y')).toEqual(['--yes']);
	});

	test("arguments: signal's actions, then a RUN_DIR; help's commands; completion's shells", () => {
		expect(bash('signal', '')).toEqual(['emergency', 'save']);
		expect(bash('signal', 'save', '')).toEqual(['runs']);
		expect(bash('signal', 'save', 'runs/exp1', '')).toEqual([]);
		expect(bash('help', '')).toEqual([...COMMAND_NAMES].sort());
		expect(bash('completion', '')).toEqual(['bash', 'zsh']);
		expect(bash('checkpoints', 'ru')).toEqual(['runs']);
		expect(bash('--analyze', 'runs/')).toEqual(['runs/exp1']);
		expect(bash('ranks', 'ru')).toEqual(['runs']);
	});

	test('flag values: files after a FILE or PATH flag (also as --flag=), nothing after --job or --pid', () => {
		expect(bash('--config', '')).toEqual(['cluster.yaml', 'runs']);
		expect(bash('--cluster', 'cl')).toEqual(['cluster.yaml']);
		// bash splits `--config=` at the `=`.
		expect(bash('--config', '=', '')).toEqual(['cluster.yaml', 'runs']);
		expect(bash('--config', '=')).toEqual(['cluster.yaml', 'runs']);
		expect(bash('ranks', '--job', '')).toEqual([]);
		expect(bash('signal', 'save', '--pid', '')).toEqual([]);
	});
});

const hasZsh = spawnSync('zsh', ['-c', 'true']).status === 0;

/**
 * What zsh's function hands to compadd and _files for `words`: outside a completion widget `words` and `CURRENT`
 * are plain parameters, and compadd, _files, compset and compdef are stubs that print what they were given (zsh's
 * own compadd then filters by the prefix typed).
 */
function zsh(...words: string[]): string[] {
	const script = [
		'compadd() { while [[ $1 != -- ]]; do shift; done; shift; print -rl -- "$@"; }',
		'_files() { print -r -- "<files $*>"; }',
		'compset() { :; }',
		'compdef() { print -r -- "<compdef $*>"; }',
		'source "$1"; shift',
		`words=(traintop "$@"); CURRENT=\${#words}`,
		'_traintop',
	].join('\n');
	const out = execFileSync('zsh', ['-f', '-c', script, 'zsh', zshScript, ...words], {cwd, encoding: 'utf8'});
	return out.split('\n').filter(line => line !== '' && !line.startsWith('<compdef'));
}

describe.skipIf(!hasZsh)('zsh', () => {
	test('sourced, it registers itself with compdef', () => {
		const out = execFileSync('zsh', ['-f', '-c', 'compdef() { print -r -- "$*"; }; source "$1"', 'zsh', zshScript], {
			encoding: 'utf8',
		});
		expect(out.trim()).toBe('_traintop traintop');
	});

	test('commands, per-command flags from the table, arguments and flag values', () => {
		expect(zsh('')).toEqual([...COMMAND_WORDS, '<files -/>']);
		for (const name of COMMAND_WORDS) expect(zsh(name, '--')).toEqual(flagsOf(name));
		expect(zsh('signal', '')).toEqual(['save', 'emergency']);
		expect(zsh('signal', 'save', '')).toEqual(['<files -/>']);
		expect(zsh('--config', '')).toEqual(['<files >']);
		expect(zsh('--config=cl')).toEqual(['<files >']);
		expect(zsh('ranks', '--job', '')).toEqual([]);
		expect(zsh('--pid', '5', 'help', '')).toEqual([...COMMAND_NAMES]);
	});
});

import {chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeEach, describe, expect, test} from 'vitest';
import {parseArgv} from '../../src/cli/argv.js';
import {COMMAND_NAMES, type CommandName, optionsOf} from '../../src/cli/commands.js';
import {helpRequested} from '../../src/cli/help.js';
import {OPTIONS} from '../../src/config/options.js';
import {fakeEnv, fakeRuns} from '../helpers/fake-nvidia-smi/harness.js';
import {runCli} from '../helpers/run-cli.js';

// --help and -h after any command print that command's help, exit 0 and run nothing. What each command line asks
// for is decided by two pure functions, tested here in-process for every command: parseArgv (the line sets --help or
// --version, whatever stands beside it) and helpRequested (the text it prints). cli.ts answers either flag before it
// reads a setting or starts anything; that wiring is proved by the built CLI on the most dangerous lines (`signal
// save --yes --help --pid 1` once signalled pid 1), where "nothing" is watched three ways: the fake nvidia-smi first
// on PATH logs every start (the monitor, agent, ranks and signal all ask it), a fake python3 first on PATH logs every
// start (the demo's launcher is one), and the working directory and TMPDIR stay empty (no memory log, no demo run dir).

const root = mkdtempSync(path.join(tmpdir(), 'traintop-help-'));
afterAll(() => rmSync(root, {recursive: true, force: true}));

let probe: {cwd: string; tmp: string; nvsmiLog: string; pythonLog: string; env: NodeJS.ProcessEnv};
beforeEach(() => {
	const dir = mkdtempSync(path.join(root, 'run-'));
	const [bin, cwd, tmp] = ['bin', 'cwd', 'tmp'].map(name => path.join(dir, name)) as [string, string, string];
	for (const d of [bin, cwd, tmp]) mkdirSync(d);
	const pythonLog = path.join(dir, 'python.log');
	const nvsmiLog = path.join(dir, 'nvidia-smi.log');
	writeFileSync(path.join(bin, 'python3'), `#!/bin/sh\necho "$0 $*" >> '${pythonLog}'\nexit 1\n`);
	chmodSync(path.join(bin, 'python3'), 0o755);
	const env = fakeEnv({FAKE_NVSMI_SCENARIO: 'cap-linux-h100-80gb-hbm3-590.48.01', FAKE_NVSMI_LOG: nvsmiLog});
	probe = {cwd, tmp, nvsmiLog, pythonLog, env: {...env, PATH: `${bin}${path.delimiter}${env.PATH}`, TMPDIR: tmp}};
});

const run = (args: readonly string[]) => runCli(args, {env: probe.env, cwd: probe.cwd});

function ranNothing(): void {
	expect(fakeRuns(probe.nvsmiLog), 'nvidia-smi started').toEqual([]);
	expect(() => readFileSync(probe.pythonLog, 'utf8'), 'python3 started').toThrow(/ENOENT/);
	expect(readdirSync(probe.cwd), 'files written in the working directory').toEqual([]);
	expect(readdirSync(probe.tmp), 'files written in TMPDIR').toEqual([]);
}

/** What cli.ts prints for a command line that asks for help or the version, as its pure parts decide it. */
function answer(line: readonly string[]): {flags: Record<string, unknown>; text: string} {
	const {input, flags} = parseArgv(line, import.meta);
	return {flags, text: helpRequested(input, flags)};
}

/** `traintop help NAME` (`traintop --help` for the monitor, the command with no word: its usage is the overview's). */
const helpOf = (name: CommandName): string => answer(name === 'monitor' ? ['--help'] : ['help', name]).text;

/** Each command as it would run, with --help put among its other words. */
const LINES: Record<CommandName, (help: string) => string[]> = {
	monitor: help => ['runs/exp1', '--headless', help, '--interval', '0.1'],
	demo: help => ['demo', '--headless', help],
	ranks: help => ['ranks', '--json', help, '--match', 'python'],
	signal: help => ['signal', 'save', '--yes', help, '--pid', '1'],
	drill: help => ['drill', 'runs/exp1', '--yes', help, '--grace', '30', '--pid', '1'],
	stacks: help => ['stacks', 'runs/exp1', '--json', help, '--pid', '1'],
	checkpoints: help => ['checkpoints', '.', help],
	preflight: help => ['preflight', '--workers', '4', help, '--batch-size', '8', '--sample-shape', '3x224x224'],
	agent: help => ['agent', help, '--interval', '0.1'],
	analyze: help => ['--analyze', 'x.jsonl', help],
	completion: help => ['completion', 'bash', help],
	help: help => ['help', help],
};

const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as {
	version: string;
};

describe.each(COMMAND_NAMES)('%s', name => {
	test.each(['--help', '-h'])(`%s asks for its help (= traintop help ${name})`, flag => {
		const {flags, text} = answer(LINES[name](flag));
		// The flag cli.ts answers before anything else, whatever the other words.
		expect(flags.help).toBe(true);
		expect(text).toBe(helpOf(name));
	});

	test('its help: its usage, only its options, every line within 80 columns', () => {
		const lines = answer(['help', name]).text.trimEnd().split('\n');
		expect(lines[0]).toMatch(new RegExp(`^traintop ${name} — `));
		for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
		const listed = lines.filter(line => /^ {2}-/.test(line)).map(line => line.trim().split(/ {2,}/)[0]);
		expect(listed).toEqual(optionsOf(name).map(o => o.usage));
	});
});

test('the overview: every command, every option with its default, within 80 columns', () => {
	const stdout = answer(['--help']).text;
	for (const line of stdout.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
	for (const name of COMMAND_NAMES) expect(stdout).toMatch(new RegExp(`^ {2}${name} {2,}\\S`, 'm'));
	const flat = stdout.replace(/\s+/g, ' ');
	for (const option of OPTIONS) {
		expect(stdout).toMatch(
			new RegExp(`^ {2}${option.usage.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?: {2,}\\S|$)`, 'm'),
		);
		if (option.defaultText !== undefined) expect(flat).toContain(`(default: ${option.defaultText})`);
	}
	// An option only some commands take says which.
	expect(flat).toContain('--yes signal: do not ask for confirmation');
});

test('-v and --version ask for the version, wherever they stand', () => {
	for (const args of [['-v'], ['--version'], ['ranks', '-v'], ['signal', 'save', '--version', '--pid', '1']]) {
		const {flags, text} = answer(args);
		expect(flags.version).toBe(true);
		expect(text).toBe(pkg.version);
	}
});

test('the built CLI answers --help and --version before anything runs: exit 0, the text, nothing started', async () => {
	for (const flag of ['--help', '-h']) {
		const {code, stdout, stderr} = await run(LINES.signal(flag));
		expect(stderr).toBe('');
		expect(code).toBe(0);
		expect(stdout).toBe(`${helpOf('signal')}\n`);
	}
	const version = await run(['signal', 'save', '--version', '--pid', '1']);
	expect(version.code).toBe(0);
	expect(version.stdout).toBe(`${pkg.version}\n`);
	ranNothing();
});

test('the probes see a command that does run: ranks asks nvidia-smi, demo starts python3', async () => {
	// Without these, an empty log could mean a probe that never sees anything.
	const ranks = await run(['ranks', '--json', '--match', 'no-such-job-[0-9]{40}']);
	expect(ranks.code).toBe(0);
	expect(fakeRuns(probe.nvsmiLog).length).toBeGreaterThan(0);
	await run(['demo', '--headless']);
	expect(readFileSync(probe.pythonLog, 'utf8')).toMatch(/python3 .*launcher\.py/);
});

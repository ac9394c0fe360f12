import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, expect, test} from 'vitest';
import {closest, typoDistance} from '../../src/cli/suggest.js';
import {runCli, startCli} from '../helpers/run-cli.js';

// Usage errors from the built binary: `traintop:` first, the flag or word as typed, the closest known one when it
// is a likely typo, exit 2, and nothing run (stdout empty).

let cwd: string;
beforeAll(async () => {
	cwd = await mkdtemp(path.join(tmpdir(), 'traintop-usage-'));
});
afterAll(async () => {
	await rm(cwd, {recursive: true, force: true});
});

test.each([
	[['--hsots', 'gpu1,gpu2'], 'traintop: unknown option --hsots (did you mean --hosts?)'],
	[['signal', 'save', '--yse'], 'traintop: unknown option --yse (did you mean --yes?)'],
	[['--ram-treshold=80'], 'traintop: unknown option --ram-treshold (did you mean --ram-threshold?)'],
	[['ranks', '--jsno'], 'traintop: unknown option --jsno (did you mean --json?)'],
	[['--no-lgo'], 'traintop: unknown option --no-lgo (did you mean --no-log?)'],
	// Too far from any flag to be a typo of one; a one-letter flag is one edit from every other.
	[['--frobnicate'], 'traintop: unknown option --frobnicate'],
	[['ranks', '-x'], 'traintop: unknown option -x'],
	// The first one on the line, when there are several.
	[
		['--headless', '--intervall', '1', '--hsots', 'a'],
		'traintop: unknown option --intervall (did you mean --interval?)',
	],
	// A switch takes no value, whichever way it is written: never "unknown option --no-log", never a silent false.
	[['--no-log=false'], 'traintop: --no-log takes no value (got --no-log=false): give --no-log alone, or leave it out'],
	[['signal', 'save', '--yes=banana'], 'traintop: --yes takes no value (got --yes=banana): give --yes alone, or'],
	[['--headless=true'], 'traintop: --headless takes no value (got --headless=true): give --headless alone, or'],
	[['ranks', '--json', 'false'], 'traintop: --json takes no value (got --json false): give --json alone, or'],
	[['--interval', '1', '--interval', '2'], 'traintop: --interval given more than once (each option takes one value)'],
	[['help', 'sginal'], 'traintop: help sginal: no such command (did you mean signal?); the commands: monitor,'],
	[['sginal', 'save'], 'traintop: sginal is not a command (did you mean traintop signal?); a RUN_DIR that'],
	[['completion', 'fish'], 'traintop: completion fish: name the shell, bash or zsh'],
	// A bad value keeps naming its flag.
	[
		['ranks', '--stall-after', 'soon'],
		"traintop: --stall-after needs a plain decimal number such as 30 or 0.5 (got 'soon')",
	],
	[['ranks', '--pid', 'x'], "traintop: --pid needs a process id greater than 1 (got 'x')"],
])('%o → exit 2: %s', async (args, message) => {
	const {code, stdout, stderr} = await runCli([...args, '--nvidia-smi', '/nonexistent'], {cwd});
	expect(stderr.startsWith(message), stderr).toBe(true);
	expect(stderr.trimEnd().split('\n')).toHaveLength(1);
	expect(code).toBe(2);
	expect(stdout).toBe('');
});

test('a word close to a command is a RUN_DIR when written as a path: ./sginal is waited for, not refused', async () => {
	const run = startCli(
		[
			'./sginal',
			'--headless',
			'--no-log',
			'--interval',
			'0.1',
			'--log-interval',
			'0.3',
			'--nvidia-smi',
			'/nonexistent',
		],
		{cwd},
	);
	// Monitoring: a first status line, after the word that it waits for its RUN_DIR.
	await run.waitFor(o => o.stdout.includes(' ram '));
	expect(run.stderr()).toContain(`RUN_DIR ${path.join(cwd, 'sginal')} does not exist yet: waiting for it to appear`);
	run.child.kill('SIGTERM');
	expect(await run.exited).toBe(0);
});

test('closest: a typo within half the word (at most 3 edits), else nothing', () => {
	const flags = ['hosts', 'host', 'json', 'yes', 'job', 'ram-threshold'];
	expect(closest('hsots', flags)).toBe('hosts');
	expect(closest('HOSTS', flags)).toBe('hosts');
	expect(closest('ram-treshold', flags)).toBe('ram-threshold');
	expect(closest('jb', flags)).toBe('job');
	expect(closest('ab', flags)).toBeNull();
	expect(closest('x', flags)).toBeNull();
	expect(closest('frobnicate', flags)).toBeNull();
	// Two letters swapped are one typo.
	expect(typoDistance('yse', 'yes')).toBe(1);
	expect(closest('yse', flags)).toBe('yes');
	expect(typoDistance('kitten', 'sitting')).toBe(3);
	expect(typoDistance('', 'abc')).toBe(3);
});

import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, expect, test} from 'vitest';
import {runCli} from '../helpers/run-cli.js';

// `traintop drill`'s refusals before anything is looked for or sent: each names the flag and the rule, exit 2. The
// built CLI; --match NONE finds no process, so a line that got past its check would still signal nothing.

const dir = mkdtempSync(path.join(tmpdir(), 'traintop-drill-usage-'));
afterAll(() => rmSync(dir, {recursive: true, force: true}));
/** Matches no process (traintop itself, whose command line holds it, is never a rank). */
const NONE = ['--match', '^no process is called this$'];

test.each([
	[['--grace', '0'], '--grace must be above 0 (seconds) (got 0)'],
	[['--grace', 'soon'], "--grace needs a plain decimal number such as 30 or 0.5 (got 'soon')"],
	[['--max-work-at-risk', '-5'], '--max-work-at-risk must be above 0 (seconds) (got -5)'],
	[['--force'], '--force: not for a drill'],
	[['--rank', '0'], '--rank: not for a drill'],
	[['--hosts', 'a,b'], '--hosts: not for a drill'],
	[['--save-signal', 'SIGTERM'], 'drill: the save signal is SIGTERM, the emergency one'],
	[
		['--save-signal', 'SIGUSR2', '--emergency-signal', 'SIGUSR2'],
		'drill: the save signal is SIGUSR2, the emergency one',
	],
])('drill %j → exit 2: %s', async (flags, message) => {
	const {code, stderr} = await runCli(['drill', dir, '--yes', ...NONE, '--nvidia-smi', '/nonexistent', ...flags]);
	expect(stderr).toContain(message);
	expect(code).toBe(2);
});

test('a RUN_DIR that is not there, and two of them, are refused by name', async () => {
	const missing = await runCli(['drill', path.join(dir, 'nope'), '--yes', ...NONE]);
	expect(missing.stderr).toContain(`RUN_DIR ${path.join(dir, 'nope')}: no such directory`);
	expect(missing.code).toBe(2);
	const two = await runCli(['drill', dir, dir, '--yes', ...NONE]);
	expect(two.stderr).toContain('drill takes at most one RUN_DIR');
	expect(two.code).toBe(2);
});

test('no job found: said, nothing sent, exit 3 (as signal); --readonly refuses the same way', async () => {
	const none = await runCli(['drill', dir, '--yes', ...NONE, '--nvidia-smi', '/nonexistent', '--json']);
	expect(none.code, none.stderr).toBe(3);
	expect(none.stderr).toMatch(/^traintop: drill: no ranks found .*; nothing sent$/m);
	expect(JSON.parse(none.stdout)).toMatchObject({schema_version: 1, signal: 'SIGUSR1', results: []});
	const readonly = await runCli(['drill', dir, '--yes', ...NONE, '--readonly']);
	expect(readonly.code).toBe(3);
	expect(readonly.stderr).toContain('traintop: drill: --readonly; nothing sent');
});

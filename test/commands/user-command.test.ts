import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {traintopCommand} from '../../src/commands/user-command.js';
import {CLI} from '../helpers/dist.js';
import {startCli} from '../helpers/run-cli.js';

// The command a message suggests must be one the user's shell runs: real files, links and PATHs in a temp dir
// stand for a clone, a global install's bin link, npm's node_modules/.bin and another traintop.

let dir: string;
let clone: string;
let cli: string;
let elsewhere: string;
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-command-'));
	clone = path.join(dir, 'clone');
	cli = path.join(clone, 'dist', 'cli.js');
	elsewhere = path.join(dir, 'elsewhere');
	await mkdir(path.dirname(cli), {recursive: true});
	await mkdir(path.join(clone, 'src'), {recursive: true});
	await mkdir(elsewhere);
	await writeFile(path.join(clone, 'package.json'), '{"name": "traintop"}');
	await writeFile(cli, '#!/usr/bin/env node\n');
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

/** A directory holding a `traintop` link to `target`. */
async function binDir(name: string, target: string): Promise<string> {
	const bin = path.join(dir, name);
	await mkdir(bin, {recursive: true});
	await symlink(target, path.join(bin, 'traintop'));
	return bin;
}

describe('the traintop command a message suggests', () => {
	test('`traintop` when the first traintop on PATH is this file, whichever way it was started', async () => {
		const bin = await binDir('global-bin', cli);
		const env = {PATH: ['/nonexistent', bin, '/usr/bin'].join(path.delimiter)};
		expect(traintopCommand({script: cli, env, cwd: elsewhere})).toBe('traintop');
		expect(traintopCommand({script: path.join(bin, 'traintop'), env, cwd: clone})).toBe('traintop');
	});

	test("`npx traintop` in the clone: npm's node_modules/.bin and another traintop on PATH do not count", async () => {
		const npmBin = await binDir(path.join('project', 'node_modules', '.bin'), cli);
		const other = path.join(dir, 'other-cli.js');
		await writeFile(other, '');
		const otherBin = await binDir('other-bin', other);
		const env = {PATH: [npmBin, otherBin].join(path.delimiter)};
		expect(traintopCommand({script: cli, env, cwd: clone})).toBe('npx traintop');
		expect(traintopCommand({script: cli, env, cwd: path.join(clone, 'src')})).toBe('npx traintop');
		// Outside the clone neither `traintop` (that would run the other one) nor npx (no project there) works.
		expect(traintopCommand({script: cli, env, cwd: elsewhere})).toBe(`node ${cli}`);
	});

	test("`npx traintop` when npx fetched it (it runs from npx's cache), from wherever", async () => {
		const cached = path.join(dir, '.npm', '_npx', '0123abcd', 'node_modules', 'traintop', 'dist', 'cli.js');
		await mkdir(path.dirname(cached), {recursive: true});
		await writeFile(cached, '');
		expect(traintopCommand({script: cached, env: {PATH: ''}, cwd: elsewhere})).toBe('npx traintop');
		// npm's variables do not count: anything started under `npx` (vitest here) inherits npm_command=exec.
		expect(traintopCommand({script: cli, env: {PATH: '', npm_command: 'exec'}, cwd: elsewhere})).toBe(`node ${cli}`);
	});

	test('a path with a space is one shell word', async () => {
		const spaced = path.join(dir, 'my clone', 'dist', 'cli.js');
		await mkdir(path.dirname(spaced), {recursive: true});
		await writeFile(spaced, '');
		expect(traintopCommand({script: spaced, env: {PATH: ''}, cwd: elsewhere})).toBe(`node '${spaced}'`);
	});
});

describe("the demo's exit message, from the built CLI", () => {
	/** `traintop demo` (headless: stdout is a pipe) until it watches, then SIGTERM: its last words on stderr. */
	async function demoLastWords(env: NodeJS.ProcessEnv): Promise<string> {
		const run = startCli(['demo', '--nvidia-smi', '/nonexistent', '--no-log'], {cwd: elsewhere, env});
		await run.waitFor(o => o.stderr.includes('traintop: watching'), 20_000);
		run.child.kill('SIGTERM');
		expect(await run.exited).toBe(0);
		return run.stderr();
	}

	test('installed (traintop on PATH is this build): `traintop checkpoints DIR`', async () => {
		const bin = await binDir('demo-bin', CLI);
		const words = await demoLastWords({PATH: `${bin}${path.delimiter}${process.env.PATH}`});
		expect(words).toMatch(/^traintop demo: look again: traintop checkpoints \/\S+traintop-demo-\S+$/m);
	}, 30_000);

	test('run by its path from elsewhere: `node …/dist/cli.js checkpoints DIR`', async () => {
		const words = await demoLastWords({PATH: process.env.PATH});
		expect(words).toContain(`traintop demo: look again: node ${CLI} checkpoints `);
	}, 30_000);
});

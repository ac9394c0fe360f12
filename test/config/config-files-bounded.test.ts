import {execFileSync} from 'node:child_process';
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {runCli} from '../helpers/run-cli.js';

// Every config file traintop reads before it does anything (--config, the default XDG file, --cluster's cluster.yaml,
// preflight's --train-config) is read only when it is a regular file of at most 1 MiB that nests at most 64 levels.
// Before: a FIFO hung every command (`signal` included) until killed, /dev/urandom read without end, a deep YAML
// overflowed the parser's stack and an 11 MB YAML took preflight 1 GB and 17 s. The real binary, real files.

let dir: string;
beforeAll(() => {
	dir = mkdtempSync(path.join(tmpdir(), 'traintop-config-bounded-'));
});
afterAll(() => {
	rmSync(dir, {recursive: true, force: true});
});

function fifo(name: string): string {
	const file = path.join(dir, name);
	mkdirSync(path.dirname(file), {recursive: true});
	execFileSync('mkfifo', [file]);
	return file;
}

/** The CLI's exit and stderr; a hang is killed after 20 s and shows up as SIGKILL, not as a test timeout. */
async function run(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
	return runCli(args, {env, timeoutMs: 20_000});
}

describe('settings file (--config, default XDG path)', () => {
	test('a FIFO as --config is refused at once, for signal too (exit 2, the file and the rule)', async () => {
		const file = fifo('fifo.json');
		const result = await run(['signal', 'save', '--yes', '--config', file]);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain(`cannot read config file ${file}: a FIFO, not a regular file`);
		expect(result.stderr).toContain('a config is read only from a regular file of at most 1048576 bytes');
	});

	test('a FIFO at the default XDG path is refused, not waited on', async () => {
		const xdg = path.join(dir, 'xdg');
		const file = fifo(path.join('xdg', 'traintop', 'config.json'));
		const result = await run(['ranks', '--json'], {XDG_CONFIG_HOME: xdg, TRAINTOP_CONFIG: ''});
		expect(result.code).toBe(2);
		expect(result.stderr).toContain(`cannot read config file ${file}: a FIFO, not a regular file`);
	});

	test('--config /dev/urandom is a character device, not read', async () => {
		const result = await run(['ranks', '--json', '--config', '/dev/urandom']);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain('cannot read config file /dev/urandom: a character device, not a regular file');
	});

	test('a config over 1 MiB is refused unread', async () => {
		const file = path.join(dir, 'big.json');
		writeFileSync(file, `{"ramThreshold": 80${' '.repeat(2 * 1024 * 1024)}}`);
		const result = await run(['ranks', '--json', '--config', file]);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain(`cannot read config file ${file}: ${2 * 1024 * 1024 + 20} bytes, over the`);
	});

	test('a deeply nested JSON config names the line and the depth rule', async () => {
		const file = path.join(dir, 'deep.json');
		writeFileSync(file, `{"ramThreshold": ${'['.repeat(5000)}${']'.repeat(5000)}}`);
		const result = await run(['ranks', '--json', '--config', file]);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain(`config file ${file} line 1: nested deeper than 64 levels`);
	});
});

describe('cluster.yaml and the training config', () => {
	test('a FIFO as --cluster is refused (exit 2)', async () => {
		const file = fifo('cluster.yaml');
		const result = await run(['--headless', '--cluster', file]);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain(`cannot read cluster file ${file}: a FIFO, not a regular file`);
	});

	test('a deeply nested cluster.yaml names the line (no stack overflow)', async () => {
		const file = path.join(dir, 'deep-cluster.yaml');
		writeFileSync(file, `nodes:\n  - name: a\n    gpus: ${'['.repeat(3000)}${']'.repeat(3000)}\n`);
		const result = await run(['--headless', '--cluster', file]);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain(`cluster file ${file} line 3: nested deeper than 64 levels`);
		expect(result.stderr).not.toMatch(/call stack|RangeError|at .*\.js:\d+/);
	});

	test('block nesting counts too: 100 levels of indented keys in a training config', async () => {
		const file = path.join(dir, 'deep-train.yaml');
		writeFileSync(file, Array.from({length: 100}, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n'));
		const result = await run(['preflight', '--train-config', file]);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain(`training config ${file} line 65: nested deeper than 64 levels`);
	});

	test('an 11 MB training config is refused unread, fast', async () => {
		const file = path.join(dir, 'huge.yaml');
		const line = 'trainer:\n  thread_workers: 4\n';
		writeFileSync(file, `${line}${'# padding padding padding padding padding padding padding\n'.repeat(190_000)}`);
		const result = await run(['preflight', '--train-config', file]);
		expect(result.code).toBe(2);
		expect(result.stderr).toMatch(
			new RegExp(`cannot read training config ${file}: \\d+ bytes, over the 1048576-byte limit`),
		);
	});

	test('a normal training config still reads', async () => {
		const file = path.join(dir, 'ok.yaml');
		writeFileSync(file, 'trainer:\n  thread_workers: 4\n  batch_size: 8\n');
		const result = await run(['preflight', '--train-config', file, '--json']);
		expect(result.stderr).not.toContain('cannot read');
		expect(result.stderr).not.toContain('nested deeper');
	});
});

import {type ChildProcess, spawn} from 'node:child_process';
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {fakeEnv, killAll, readInvocations} from '../helpers/fake-nvidia-smi/harness.js';
import {type PythonChild, startPython} from '../helpers/python-child.js';
import {runCli, startCli} from '../helpers/run-cli.js';

// Text from outside (a run dir's names, nvidia-smi's words, another process's argv) reaches the terminal with
// every control character shown as an escape: a name must not be able to retitle or recolour the user's terminal.

const PWNED = '\u001b]0;PWNED\u0007';
const SHOWN = '\\e]0;PWNED\\x07';

let dir = '';
let rank: PythonChild | null = null;
let shell: ChildProcess | null = null;

/** A python3 rank under a shell of its own (its own session): the shell proves the job, the variables name it. */
async function startInShell(env: Record<string, string>, tag: string): Promise<void> {
	const script = path.join(dir, 'rank.py');
	await writeFile(script, 'import time\nprint("ready", flush=True)\ntime.sleep(120)\n');
	shell = spawn('bash', ['-c', `python3 ${script} ${tag}; :`], {
		env: {PATH: process.env.PATH ?? '/usr/bin:/bin', ...env},
		detached: true,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const started = shell;
	await new Promise<void>((resolve, reject) => {
		started.stdout?.once('data', () => resolve());
		started.once('exit', code => reject(new Error(`the rank's shell exited (${code}) before it was ready`)));
	});
}
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-escapes-'));
});
afterEach(async () => {
	rank?.kill('SIGKILL');
	rank = null;
	if (shell?.pid !== undefined) {
		try {
			process.kill(-shell.pid, 'SIGKILL');
		} catch {}
	}
	shell = null;
	await rm(dir, {recursive: true, force: true});
});

describe('escape sequences from outside', () => {
	test('`checkpoints`: a checkpoint dir named with an OSC sequence is listed escaped', async () => {
		await mkdir(path.join(dir, `ckpt-200${PWNED}`));
		await writeFile(path.join(dir, `ckpt-200${PWNED}`, 'model.pt'), 'x');
		const {code, stdout} = await runCli(['checkpoints', dir]);
		expect(code).toBe(0);
		expect(stdout).toContain(`ckpt-200${SHOWN}`);
		expect(stdout).not.toContain('\u001b');
		expect(stdout).not.toContain('\u0007');
		// --json keeps the exact name (JSON escapes it itself): a script can still find the directory.
		const json = await runCli(['checkpoints', dir, '--json']);
		expect((JSON.parse(json.stdout) as {checkpoints: {name: string}[]}).checkpoints[0]?.name).toBe(`ckpt-200${PWNED}`);
	});

	test("headless: nvidia-smi's error text with escapes is printed escaped", async () => {
		const scenario = path.join(dir, 'err-escapes.json');
		await writeFile(
			scenario,
			JSON.stringify({scenario: 'err-escapes', exit: 9, stdout: `NVIDIA-SMI has failed${PWNED}\u001b[2J here\n`}),
		);
		const calls = path.join(dir, 'calls.jsonl');
		const run = startCli(['--interval', '0.1', '--log-interval', '0.5', '--no-log'], {
			env: fakeEnv({FAKE_NVSMI_SCENARIO: scenario, FAKE_NVSMI_LOG: calls}),
		});
		try {
			await run.waitFor(o => o.stderr.includes('GPU: nvidia-smi failed'), 15_000);
			run.child.kill('SIGINT');
			expect(await run.exited).toBe(0);
		} finally {
			killAll(readInvocations(calls).map(entry => entry.pid));
		}
		expect(run.stderr()).toContain(`GPU: nvidia-smi failed — NVIDIA-SMI has failed${SHOWN}\\e[2J here`);
		expect(run.stderr()).not.toContain('\u001b');
		expect(run.stdout()).not.toContain('\u001b');
	});

	test('headless: a GPU name from nvidia-smi with escapes is printed escaped', async () => {
		// One GPU whose recorded name carries an OSC title and a clear-screen CSI.
		const scenario = path.join(dir, 'name-escapes.json');
		await writeFile(
			scenario,
			JSON.stringify({
				scenario: 'name-escapes',
				recorded_format: 'csv,noheader,nounits',
				fields: ['index', 'uuid', 'name', 'memory.used', 'memory.total'],
				files: {'query-gpu.csv': `0, GPU-0001, H100${PWNED}\u001b[2J, 802, 12206\n`},
			}),
		);
		const calls = path.join(dir, 'calls.jsonl');
		const run = startCli(['--interval', '0.1', '--log-interval', '0.5', '--no-log'], {
			env: fakeEnv({FAKE_NVSMI_SCENARIO: scenario, FAKE_NVSMI_LOG: calls}),
		});
		try {
			await run.waitFor(o => o.stderr.includes('GPU: 1 device'), 15_000);
			run.child.kill('SIGINT');
			expect(await run.exited).toBe(0);
		} finally {
			killAll(readInvocations(calls).map(entry => entry.pid));
		}
		expect(run.stderr()).toContain(`GPU: 1 device, 1 × H100${SHOWN}\\e[2J`);
		expect(run.stderr()).not.toContain('\u001b');
		expect(run.stderr()).not.toContain('\u0007');
		expect(run.stdout()).not.toContain('\u001b');
	});

	test('`ranks`: a rank whose argv holds an escape sequence is listed escaped', async () => {
		const tag = `traintop-escape-rank-${process.pid}`;
		rank = await startPython('', {}, `${tag}${PWNED}`);
		const {code, stdout} = await runCli(['ranks', '--match', tag, '--nvidia-smi', '/nonexistent']);
		expect(code).toBe(0);
		expect(stdout).toContain(`${tag}${SHOWN}`);
		expect(stdout).not.toContain('\u001b');
		expect(stdout).not.toContain('\u0007');
	});

	test("`ranks`: a job id made of a rank's rendezvous variables is listed escaped", async () => {
		// A process's environment is its own to set: MASTER_ADDR makes the id of a job proven by its one shell.
		const tag = `traintop-escape-env-${process.pid}`;
		await startInShell({RANK: '0', WORLD_SIZE: '1', MASTER_ADDR: `h${PWNED}\u001b[2J`, MASTER_PORT: '29517'}, tag);
		for (const wide of [[], ['--wide']]) {
			const {code, stdout} = await runCli(['ranks', '--match', tag, '--nvidia-smi', '/nonexistent', ...wide]);
			expect(code).toBe(0);
			expect(stdout).toContain(`job rdzv:h${SHOWN}\\e[2J:29517`);
			expect(stdout).not.toContain('\u001b');
			expect(stdout).not.toContain('\u0007');
		}
	});

	test("`signal`: a job id made of a rank's environment is printed escaped in the preview and the refusal", async () => {
		const tag = `traintop-escape-signal-${process.pid}`;
		await startInShell({RANK: '0', WORLD_SIZE: '1', MASTER_ADDR: `h${PWNED}\u001b[2J`, MASTER_PORT: '29518'}, tag);
		// The rank has no SIGUSR1 handler: the save is refused (exit 3) after the preview names the job.
		const {code, stdout, stderr} = await runCli([
			'signal',
			'save',
			'--match',
			tag,
			'--yes',
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(code).toBe(3);
		expect(stderr).toContain(`job rdzv:h${SHOWN}\\e[2J:29518`);
		for (const text of [stdout, stderr]) {
			expect(text).not.toContain('\u001b');
			expect(text).not.toContain('\u0007');
		}
	});
});

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
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-escapes-'));
});
afterEach(async () => {
	rank?.kill('SIGKILL');
	rank = null;
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

	test("`ranks`: a job id and SLURM job id made of a rank's environment are listed escaped", async () => {
		// A process's environment is its own to set: SLURM_JOB_ID makes the job's id and its SLURM part.
		const tag = `traintop-escape-env-${process.pid}`;
		rank = await startPython(
			'',
			{RANK: '0', WORLD_SIZE: '1', MASTER_ADDR: `h${PWNED}`, MASTER_PORT: '29517', SLURM_JOB_ID: `9${PWNED}\u001b[2J`},
			tag,
		);
		for (const wide of [[], ['--wide']]) {
			const {code, stdout} = await runCli(['ranks', '--match', tag, '--nvidia-smi', '/nonexistent', ...wide]);
			expect(code).toBe(0);
			expect(stdout).toContain(`job slurm:9${SHOWN}\\e[2J`);
			expect(stdout).toContain(`SLURM 9${SHOWN}\\e[2J`);
			expect(stdout).not.toContain('\u001b');
			expect(stdout).not.toContain('\u0007');
		}
	});
});

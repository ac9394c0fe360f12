import {mkdtemp, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {fakeEnv, fakeRuns, isAlive, killAll, readInvocations, waitFor} from '../helpers/fake-nvidia-smi/harness.js';
import {startPython} from '../helpers/python-child.js';
import {startCli} from '../helpers/run-cli.js';

// The built CLI with the fake nvidia-smi first on PATH, replaying real recorded outputs.

const H100 = 'cap-linux-h100-80gb-hbm3-590.48.01';
const EIGHT_GPUS = 'issue-titanx-8gpu-noheader-nounits';
const FAST = ['--interval', '0.1', '--log-interval', '0.5', '--gpu-process-interval', '0.2'];

let dir: string;
let calls: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-cli-gpu-'));
	calls = path.join(dir, 'nvidia-smi-calls.jsonl');
});
afterEach(async () => {
	await rm(dir, {recursive: true, force: true});
});

type Rec = {
	gpu_status: string;
	gpu_message?: string;
	gpu: {memory_total_gb: number; peak_memory_percent: number} | null;
	gpus: {index: number; name: string; memory_total_gb: number; memory_percent: number; peak_memory_percent: number}[];
	memory: {percent: number} | null;
};

/** The log records in --json's stdout: not its start line (`{"schema_version":1,"event":"start",…}`) nor events. */
function records(text: string): Rec[] {
	return text
		.trim()
		.split('\n')
		.filter(Boolean)
		.map(line => JSON.parse(line) as Rec & {event?: string})
		.filter(line => line.event === undefined);
}

function allPids(): number[] {
	return readInvocations(calls).map(entry => entry.pid);
}

describe('headless with GPUs', () => {
	test('an H100: one long-lived loop, its values in the log, and nothing left running after SIGINT', async () => {
		// No ranks are found here (--match names nothing), so per-process GPU memory has no use:
		// no compute-apps one-shot may run.
		const run = startCli(['--json', ...FAST, '--no-log', '--match', 'no-such-job-[0-9]{40}'], {
			env: fakeEnv({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_LOG: calls}),
		});
		try {
			await run.waitFor(o => records(o.stdout).filter(r => r.gpu_status === 'ok').length >= 3, 15_000);
			expect(fakeRuns(calls, '--query-compute-apps')).toEqual([]);
			run.child.kill('SIGINT');
			expect(await run.exited).toBe(0);
		} finally {
			killAll(allPids());
		}
		const loops = fakeRuns(calls, '--query-gpu');
		expect(loops).toHaveLength(1);
		expect(loops[0]?.argv).toContain('-lms');
		const ok = records(run.stdout()).filter(r => r.gpu_status === 'ok');
		for (const r of ok) {
			expect(r.gpus).toHaveLength(1);
			// 81559 MiB in the recording.
			expect(r.gpus[0]).toMatchObject({index: 0, name: 'NVIDIA H100 80GB HBM3', memory_total_gb: 79.647});
		}
		// The recording alternates idle (0 MiB) and load (19818 MiB = 24.30 %): every window of 5 samples sees the load.
		expect(ok.slice(1).every(r => r.gpus[0]?.peak_memory_percent === 24.3)).toBe(true);
		expect(run.stderr()).toContain('GPU: 1 device, 1 × NVIDIA H100 80GB HBM3');
		// No nvidia-smi outlives traintop.
		await waitFor(() => allPids().every(pid => !isAlive(pid)), 'every fake nvidia-smi to be gone', 3000);
	});

	test('with a rank to attribute GPU memory to, compute-apps one-shots run; still one device loop', async () => {
		const tag = `tt-gpu-${process.pid}-${Date.now()}`;
		const rank = await startPython('', {RANK: '0', WORLD_SIZE: '1'}, tag);
		const run = startCli(['--json', ...FAST, '--no-log', '--match', tag], {
			env: fakeEnv({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_LOG: calls}),
		});
		try {
			await waitFor(() => fakeRuns(calls, '--query-compute-apps').length >= 2, 'compute-apps one-shots', 15_000);
			expect(fakeRuns(calls, '--query-gpu')).toHaveLength(1);
			run.child.kill('SIGINT');
			expect(await run.exited).toBe(0);
		} finally {
			rank.kill();
			killAll(allPids());
		}
	});

	test('8 GPUs: a field per GPU in the status line and a WARN for the one within 10 points of 90 %', async () => {
		const run = startCli(FAST, {env: fakeEnv({FAKE_NVSMI_SCENARIO: EIGHT_GPUS, FAKE_NVSMI_LOG: calls}), cwd: dir});
		try {
			await run.waitFor(o => o.stdout.includes('gpu7'), 15_000);
			run.child.kill('SIGTERM');
			expect(await run.exited).toBe(0);
		} finally {
			killAll(allPids());
		}
		const line = run
			.stdout()
			.split('\n')
			.find(l => l.includes('gpu7'))!;
		// 10032 of 12206 MiB on GPU 1 = 82.2 %; each GPU's recorded utilization.gpu after it.
		expect(line).toMatch(
			/gpu0 6\.6% ok util 0% {2}gpu1 82\.2% WARN util 86% {2}gpu2 52\.8% ok util 85% .* gpu7 52\.8% ok util 82%$/,
		);
		expect(run.stderr()).toContain('GPU: 8 devices, 8 × GeForce GTX TITAN X');
		expect(run.stderr()).toMatch(/WARN gpu1 at 82\.2%: within 10 points of the 90% threshold \(was ok\)/);
		const logged = records(await readFile(path.join(dir, 'traintop-memory.jsonl'), 'utf8'));
		expect(logged.at(-1)?.gpus.map(g => g.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
		expect(logged.at(-1)?.gpu?.memory_total_gb).toBeCloseTo((8 * 12206) / 1024, 2);
	});

	test("driver not loaded: the GPU is reported as failing with the driver's words, RAM monitoring goes on", async () => {
		const run = startCli(['--json', ...FAST, '--no-log'], {
			env: fakeEnv({FAKE_NVSMI_SCENARIO: 'err-driver-not-loaded', FAKE_NVSMI_LOG: calls}),
		});
		try {
			await run.waitFor(o => records(o.stdout).length >= 2, 15_000);
			run.child.kill('SIGINT');
			expect(await run.exited).toBe(0);
		} finally {
			killAll(allPids());
		}
		expect(run.stderr()).toContain(
			"GPU: nvidia-smi failed — NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
		);
		const last = records(run.stdout()).at(-1)!;
		expect(last.gpu_status).toBe('error');
		expect(last.gpu_message).toMatch(/couldn't communicate with the NVIDIA driver.*\(exit 9\)/);
		expect(last.gpus).toEqual([]);
		expect(last.memory?.percent).toBeGreaterThan(0);
		// The error line is printed once, not on every retry.
		expect(run.stderr().match(/GPU: nvidia-smi failed/g)).toHaveLength(1);
	});

	test('kill -9 of traintop: the nvidia-smi loop dies of the broken pipe at its next write', async () => {
		const run = startCli(['--json', ...FAST, '--no-log'], {
			env: fakeEnv({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_LOG: calls}),
		});
		try {
			await run.waitFor(o => o.stdout.includes('"gpu_status":"ok"'), 15_000);
			const loop = fakeRuns(calls, '--query-gpu')[0]!;
			expect(isAlive(loop.pid)).toBe(true);
			run.child.kill('SIGKILL');
			expect(await run.exited).toBe('SIGKILL');
			await waitFor(() => allPids().every(pid => !isAlive(pid)), 'the orphaned nvidia-smi to exit', 3000);
		} finally {
			killAll(allPids());
		}
	});
});

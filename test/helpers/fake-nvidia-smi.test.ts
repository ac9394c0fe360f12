// The fake nvidia-smi's own behaviour: the reader's tests are only as good as the double they run against.

import {spawn} from 'node:child_process';
import {join} from 'node:path';
import {createInterface} from 'node:readline';
import {afterAll, describe, expect, it} from 'vitest';
import {FAKE_BIN, fakeEnv, fakeRuns, removeTempDirs, tempDir, type Knobs} from './fake-nvidia-smi/harness.js';
import {splitRecordedLine} from './fake-nvidia-smi/scenario.mjs';

const H100 = 'cap-linux-h100-80gb-hbm3-590.48.01';
const H100_UUID = 'GPU-00000000-0000-0000-0000-000000000000';
const GPU_FIELDS = '--query-gpu=timestamp,count,index,uuid,name,memory.total,memory.used,utilization.gpu';
const TIMESTAMP = /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/;

afterAll(removeTempDirs);

interface Result {
	code: number | null;
	stdout: string;
	stderr: string;
}

function runFake(args: string[], knobs: Knobs): Promise<Result> {
	return new Promise((resolve, reject) => {
		const child = spawn(FAKE_BIN, args, {env: fakeEnv(knobs), stdio: ['ignore', 'pipe', 'pipe']});
		let stdout = '';
		let stderr = '';
		child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
		child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
		child.once('error', reject);
		child.once('close', code => resolve({code, stdout, stderr}));
	});
}

/** Runs the fake in loop mode until `count` lines came, then kills it. */
function loopLines(args: string[], knobs: Knobs, count: number): Promise<string[]> {
	return new Promise((resolve, reject) => {
		const child = spawn(FAKE_BIN, args, {env: fakeEnv(knobs), stdio: ['ignore', 'pipe', 'ignore']});
		const lines: string[] = [];
		child.once('error', reject);
		createInterface({input: child.stdout}).on('line', line => {
			lines.push(line);
			if (lines.length === count) {
				child.kill('SIGKILL');
				resolve(lines);
			}
		});
		child.once('exit', () => reject(new Error(`fake exited after ${lines.length} lines`)));
	});
}

describe('fake nvidia-smi: projection of recordings', () => {
	it('projects the H100 idle capture onto the requested fields, with header and units as csv prints them', async () => {
		const result = await runFake([GPU_FIELDS, '--format=csv'], {FAKE_NVSMI_SCENARIO: H100});
		expect(result.code).toBe(0);
		expect(result.stdout).toBe(
			'timestamp, count, index, uuid, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%]\n' +
				`2026/07/14 08:12:38.696, 1, 0, ${H100_UUID}, NVIDIA H100 80GB HBM3, 81559 MiB, 0 MiB, 0 %\n`,
		);
	});

	it('drops the header with noheader and strips units from values with nounits (space form of the query too)', async () => {
		const result = await runFake(
			['--query-gpu', 'memory.total,memory.used,utilization.gpu', '--format', 'csv,noheader,nounits'],
			{FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_FRAME: '2'},
		);
		expect(result.stdout).toBe('81559, 19818, 100\n');
	});

	it('canonicalises aliases in the header, as the real tool does (bpytop#26 recording)', async () => {
		const result = await runFake(['--query-gpu=gpu_name,clocks.gr,fan.speed', '--format=csv,nounits'], {
			FAKE_NVSMI_SCENARIO: 'issue__bpytop-26-dual',
		});
		expect(result.stdout).toBe(
			'name, clocks.current.graphics [MHz], fan.speed [%]\nGeForce GTX 1080 Ti, 1936, 29\nGeForce GTX 1060 6GB, 139, 29\n',
		);
	});

	it('derives timestamp, count and index for a recording without them (8-GPU gpustat#5)', async () => {
		const before = Date.now();
		const result = await runFake(
			['--query-gpu=timestamp,count,index,uuid,memory.used', '--format=csv,noheader,nounits'],
			{
				FAKE_NVSMI_SCENARIO: 'issue__gpustat-5-titanx-8gpu',
			},
		);
		const rows = result.stdout
			.trimEnd()
			.split('\n')
			.map(line => line.split(', '));
		expect(rows).toHaveLength(8);
		expect(rows.map(row => row[2])).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
		expect(new Set(rows.map(row => row[1]))).toEqual(new Set(['8']));
		expect(rows[1]).toEqual([
			expect.stringMatching(TIMESTAMP),
			'8',
			'1',
			'GPU-86fe97db-bf54-a056-4e8d-9b07e1a298e7',
			'10032',
		]);
		// One timestamp for the whole sample, and it is now (local time, like nvidia-smi).
		expect(new Set(rows.map(row => row[0])).size).toBe(1);
		const [date, time] = rows[0]![0]!.split(' ');
		const stamp = new Date(`${date!.replaceAll('/', '-')}T${time}`).getTime();
		expect(stamp).toBeGreaterThanOrEqual(before - 1000);
		expect(stamp).toBeLessThanOrEqual(Date.now() + 1000);
	});

	it('adds units back when a noheader,nounits recording is asked for with units', async () => {
		const result = await runFake(['--query-gpu=memory.used,name', '--format=csv,noheader'], {
			FAKE_NVSMI_SCENARIO: 'issue__gpustat-5-titanx-8gpu',
		});
		expect(result.stdout.split('\n')[0]).toBe('802 MiB, GeForce GTX TITAN X');
	});

	it('keeps markers verbatim: [N/A] (GB10), [Not Supported], bare N/A', async () => {
		const gb10 = await runFake(
			['--query-gpu=memory.total,memory.used,utilization.gpu', '--format=csv,noheader,nounits'],
			{
				FAKE_NVSMI_SCENARIO: 'issue__gb10-unified-memory',
			},
		);
		expect(gb10.stdout).toBe('[N/A], [N/A], 0\n');
		const old = await runFake(['--query-gpu=fan.speed', '--format=csv,noheader,nounits'], {
			FAKE_NVSMI_SCENARIO: 'issue__i3pystatus-776-not-supported',
		});
		expect(old.stdout).toBe('[Not Supported]\n');
		const bare = await runFake(['--query-gpu=temperature.memory,uuid', '--format=csv,noheader,nounits'], {
			FAKE_NVSMI_SCENARIO: 'issue__gpu-utils-83-rtx2080-440',
		});
		expect(bare.stdout).toBe('N/A, GPU-22b2c6ac-2d49-4863-197c-9c469071178a\n');
	});

	it('answers compute-apps from the load frame, and nothing at all for the idle frame with noheader', async () => {
		const args = ['--query-compute-apps=gpu_uuid,pid,used_gpu_memory', '--format=csv,noheader,nounits'];
		const load = await runFake(args, {FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_FRAME: '2'});
		expect(load.stdout).toBe(`${H100_UUID}, 11327, 2566\n${H100_UUID}, 11328, 1542\n${H100_UUID}, 11345, 15690\n`);
		const idle = await runFake(args, {FAKE_NVSMI_SCENARIO: H100});
		expect(idle).toEqual({code: 0, stdout: '', stderr: ''});
	});

	it('folds a process_name containing ", " back into one column', () => {
		const columns = [
			{name: 'pid', unit: null},
			{name: 'process_name', unit: null},
			{name: 'used_gpu_memory', unit: 'MiB'},
		];
		expect(splitRecordedLine('42, msedge --a=, --b, 12 MiB', columns)).toEqual(['42', 'msedge --a=, --b', '12 MiB']);
	});

	it('walks the frames on successive one-shots with a state file', async () => {
		const state = join(tempDir(), 'state');
		const args = ['--query-compute-apps=pid', '--format=csv,noheader'];
		const knobs = {FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_STATE: state};
		const answers = [];
		for (let call = 0; call < 3; call++) answers.push((await runFake(args, knobs)).stdout);
		expect(answers).toEqual(['', '11327\n11328\n11345\n', '']);
	});

	it('prints \\r\\n line endings with FAKE_NVSMI_CRLF=1', async () => {
		const result = await runFake(['--query-gpu=index,memory.used', '--format=csv'], {
			FAKE_NVSMI_SCENARIO: H100,
			FAKE_NVSMI_CRLF: '1',
		});
		expect(result.stdout).toBe('index, memory.used [MiB]\r\n0, 0 MiB\r\n');
	});
});

describe('fake nvidia-smi: refusals and errors', () => {
	it('exits 97 for a field the recording lacks with FAKE_NVSMI_FILL_MISSING=strict, [N/A] with =na', async () => {
		const refused = await runFake([GPU_FIELDS, '--format=csv,noheader,nounits'], {
			FAKE_NVSMI_SCENARIO: 'issue__gb10-unified-memory',
			FAKE_NVSMI_FILL_MISSING: 'strict',
		});
		expect(refused.code).toBe(97);
		expect(refused.stdout).toBe('');
		expect(refused.stderr).toContain('scenario issue__gb10-unified-memory has no field uuid');
		const filled = await runFake([GPU_FIELDS, '--format=csv,noheader,nounits'], {
			FAKE_NVSMI_SCENARIO: 'issue__gb10-unified-memory',
			FAKE_NVSMI_FILL_MISSING: 'na',
		});
		expect(filled.code).toBe(0);
		expect(filled.stdout).toMatch(/^\d{4}\/.*, 1, 0, \[N\/A\], \[N\/A\], \[N\/A\], \[N\/A\], 0\n$/);
	});

	it('exits 97 for an unknown scenario', async () => {
		const result = await runFake([GPU_FIELDS, '--format=csv'], {FAKE_NVSMI_SCENARIO: 'no-such-scenario'});
		expect(result.code).toBe(97);
		expect(result.stderr).toContain('no-such-scenario');
	});

	it.each([
		[['-x']],
		[[GPU_FIELDS]],
		[[GPU_FIELDS, '--query-compute-apps=pid', '--format=csv']],
		[[GPU_FIELDS, '--format=xml']],
	])('rejects %j as an invalid combination, exit 2', async args => {
		const result = await runFake(args, {FAKE_NVSMI_SCENARIO: H100});
		expect(result.code).toBe(2);
		expect(result.stdout).toBe("Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n");
	});

	it.each([
		['err-driver-not-loaded', 9, "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."],
		[
			'err-version-mismatch',
			18,
			'Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.161\n',
		],
		['nvml-unknown-error', 255, 'Failed to initialize NVML: Unknown Error\n'],
		[
			'err-no-supported-gpus',
			255,
			'Failed to initialize NVML: No supported GPUs were found\nUnable to determine the number of GPUs\n',
		],
		['err-no-devices-found', 6, 'No devices were found\n'],
	])('replays %s: recorded text on stdout, exit %i', async (scenario, exit, text) => {
		const result = await runFake([GPU_FIELDS, '--format=csv,noheader,nounits'], {FAKE_NVSMI_SCENARIO: scenario});
		expect(result.code).toBe(exit);
		expect(result.stdout.startsWith(text)).toBe(true);
		expect(result.stderr).toBe('');
	});

	it('sends error text to stderr or both with FAKE_NVSMI_STREAM', async () => {
		const args = [GPU_FIELDS, '--format=csv'];
		const onStderr = await runFake(args, {FAKE_NVSMI_SCENARIO: 'nvml-unknown-error', FAKE_NVSMI_STREAM: 'stderr'});
		expect(onStderr).toEqual({code: 255, stdout: '', stderr: 'Failed to initialize NVML: Unknown Error\n'});
		const onBoth = await runFake(args, {FAKE_NVSMI_SCENARIO: 'nvml-unknown-error', FAKE_NVSMI_STREAM: 'both'});
		expect(onBoth.stdout).toBe(onBoth.stderr);
		expect(onBoth.stdout).toBe('Failed to initialize NVML: Unknown Error\n');
	});

	it('replays the infoROM warning: valid data, then the WARNING line, exit 14', async () => {
		const result = await runFake(['--query-gpu=index,memory.total', '--format=csv,noheader,nounits'], {
			FAKE_NVSMI_SCENARIO: 'warn-inforom-corrupted',
		});
		expect(result).toEqual({
			code: 14,
			stdout: '0, 81559\nWARNING: infoROM is corrupted at gpu 0000:0B:00.0\n',
			stderr: '',
		});
	});

	it('fails one-shots after N calls for M calls, then works again (state file)', async () => {
		const knobs = {
			FAKE_NVSMI_SCENARIO: H100,
			FAKE_NVSMI_STATE: join(tempDir(), 'state'),
			FAKE_NVSMI_FAIL_AFTER: '1',
			FAKE_NVSMI_FAIL_COUNT: '1',
			FAKE_NVSMI_FAIL_SCENARIO: 'err-driver-not-loaded',
		};
		const codes = [];
		for (let call = 0; call < 3; call++)
			codes.push((await runFake(['--query-gpu=index', '--format=csv,noheader'], knobs)).code);
		expect(codes).toEqual([0, 9, 0]);
	});
});

describe('fake nvidia-smi: loop mode and the invocation log', () => {
	it('prints one sample per interval with a live timestamp, cycling idle and load frames, header once', async () => {
		const log = join(tempDir(), 'log.jsonl');
		const lines = await loopLines(
			['--query-gpu=timestamp,memory.used', '--format=csv,nounits', '-lms', '50'],
			{
				FAKE_NVSMI_SCENARIO: H100,
				FAKE_NVSMI_LOG: log,
			},
			5,
		);
		expect(lines[0]).toBe('timestamp, memory.used [MiB]');
		const samples = lines.slice(1).map(line => line.split(', '));
		expect(samples.map(sample => sample[1])).toEqual(['0', '19818', '0', '19818']);
		const stamps = samples.map(sample => sample[0]!);
		for (const stamp of stamps) expect(stamp).toMatch(TIMESTAMP);
		expect(stamps).not.toContain('2026/07/14 08:12:38.696');
		expect([...stamps].sort()).toEqual(stamps);
		expect(new Set(stamps).size).toBe(4);
		const runs = fakeRuns(log);
		expect(runs).toHaveLength(1);
		expect(runs[0]!.argv).toEqual(['--query-gpu=timestamp,memory.used', '--format=csv,nounits', '-lms', '50']);
		expect(runs[0]!.pid).toBeGreaterThan(0);
	});

	it('accepts --loop-ms=, prints the infoROM warning after every sample and keeps looping', async () => {
		const lines = await loopLines(
			['--query-gpu=index', '--format=csv,noheader', '--loop-ms=30'],
			{
				FAKE_NVSMI_SCENARIO: 'warn-inforom-corrupted',
			},
			6,
		);
		expect(lines).toEqual(Array(3).fill(['0', 'WARNING: infoROM is corrupted at gpu 0000:0B:00.0']).flat());
	});

	it('turns into the fail scenario after N loop samples', async () => {
		const result = await runFake(['--query-gpu=index', '--format=csv,noheader', '-lms', '20'], {
			FAKE_NVSMI_SCENARIO: H100,
			FAKE_NVSMI_FAIL_AFTER: '2',
			FAKE_NVSMI_FAIL_SCENARIO: 'err-driver-not-loaded',
		});
		expect(result.code).toBe(9);
		expect(result.stdout.split('\n').slice(0, 3)).toEqual([
			'0',
			'0',
			"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
		]);
	});

	it('prints injected event text between samples', async () => {
		const lines = await loopLines(
			['--query-gpu=index', '--format=csv,noheader', '-lms', '20'],
			{
				FAKE_NVSMI_SCENARIO: H100,
				FAKE_NVSMI_INJECT_LINE: 'Xid event',
			},
			4,
		);
		expect(lines).toEqual(['0', 'Xid event', '0', 'Xid event']);
	});
});

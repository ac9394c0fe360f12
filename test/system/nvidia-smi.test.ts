// The nvidia-smi supervisor against the fake nvidia-smi, run as a real child process found first on PATH.

import {chmodSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import type {GpuProcessTable, GpuState} from '../../src/core/types.js';
import {NvidiaSmiReader, type NvidiaSmiOptions} from '../../src/system/nvidia-smi.js';
import {
	fakeEnv,
	fakeRuns,
	isAlive,
	killAll,
	readInvocations,
	removeTempDirs,
	tempDir,
	waitFor,
	type Knobs,
} from '../helpers/fake-nvidia-smi/harness.js';

const MiB = 1_048_576;
const H100 = 'cap-linux-h100-80gb-hbm3-590.48.01';
const H100_UUID = 'GPU-00000000-0000-0000-0000-000000000000';
const DRIVER_NOT_LOADED =
	"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.";
const LOOP_ARGS = [
	'--query-gpu=timestamp,count,index,uuid,name,memory.total,memory.used,utilization.gpu,temperature.gpu,power.draw,power.limit',
	'--format=csv,noheader,nounits',
	'-lms',
	'100',
];
const COMPUTE_APPS_ARGS = ['--query-compute-apps=gpu_uuid,pid,used_gpu_memory', '--format=csv,noheader,nounits'];

interface Harness {
	reader: NvidiaSmiReader;
	log: string;
	dir: string;
	/** Every GpuState the reader published, in order, with the reader's clock when it did. */
	states: {state: GpuState; at: number}[];
	/** Every GpuProcessTable it published after the initial empty one, with the wall-clock time. */
	tables: GpuProcessTable[];
	tableTimes: number[];
}

const started: Harness[] = [];

afterAll(removeTempDirs);

/**
 * A reader on the fake with test-sized timings: 100 ms loop, staleness far away unless a test is about it, and
 * restarts after 100 → 200 → 400 ms.
 */
function startReader(knobs: Knobs, options: Partial<NvidiaSmiOptions> = {}): Harness {
	const dir = tempDir();
	const log = join(dir, 'log.jsonl');
	const reader = new NvidiaSmiReader({
		intervalMs: 100,
		processIntervalMs: 0,
		firstSampleTimeoutMs: 5_000,
		staleAfterIntervals: 20,
		backoffMs: {initial: 100, max: 400},
		killGraceMs: 300,
		env: fakeEnv({FAKE_NVSMI_LOG: log, ...knobs}),
		...options,
	});
	const harness: Harness = {reader, log, dir, states: [], tables: [], tableTimes: []};
	let lastTable = reader.getProcesses();
	reader.subscribe(() => {
		const state = reader.getState();
		if (harness.states.at(-1)?.state !== state) harness.states.push({state, at: Date.now()});
		const table = reader.getProcesses();
		if (table !== lastTable) {
			lastTable = table;
			harness.tables.push(table);
			harness.tableTimes.push(Date.now());
		}
	});
	started.push(harness);
	reader.start();
	return harness;
}

afterEach(async () => {
	for (const harness of started.splice(0)) {
		await harness.reader.stop();
		killAll(
			readInvocations(harness.log)
				.map(entry => entry.pid)
				.filter(isAlive),
		);
	}
});

function okState(harness: Harness, predicate: (state: Extract<GpuState, {status: 'ok'}>) => boolean = () => true) {
	return waitFor(() => {
		const state = harness.reader.getState();
		return state.status === 'ok' && predicate(state) ? state : undefined;
	}, 'an ok state');
}

function errorState(harness: Harness, timeoutMs = 5_000) {
	return waitFor(
		() => {
			const state = harness.reader.getState();
			return state.status === 'error' ? state : undefined;
		},
		'an error state',
		timeoutMs,
	);
}

/** A PATH with an nvidia-smi that is not executable: spawn fails with EACCES, which the reader retries. */
function nonExecutableNvidiaSmi(): string {
	const dir = tempDir();
	writeFileSync(join(dir, 'nvidia-smi'), '#!/bin/sh\n');
	chmodSync(join(dir, 'nvidia-smi'), 0o644);
	return dir;
}

/** Distinct statuses in order, consecutive repeats folded: ['ok', 'error', 'ok']. */
function statusTrail(harness: Harness): string[] {
	return harness.states.map(({state}) => state.status).filter((status, i, all) => status !== all[i - 1]);
}

describe('device samples', () => {
	it('streams the H100 idle and load frames from ONE long-lived loop', async () => {
		let clock = 1_000_000;
		const h = startReader({FAKE_NVSMI_SCENARIO: H100}, {now: () => ++clock});
		expect(h.reader.getState()).toEqual({status: 'starting', source: 'nvidia-smi'});
		const idle = await okState(h, state => state.gpus[0]?.memoryUsedBytes === 0);
		const load = await okState(h, state => state.gpus[0]?.memoryUsedBytes === 19818 * MiB);
		expect(idle).toEqual({
			status: 'ok',
			source: 'nvidia-smi',
			sampledAt: expect.any(Number),
			warning: null,
			gpus: [
				{
					index: 0,
					uuid: H100_UUID,
					name: 'NVIDIA H100 80GB HBM3',
					memoryTotalBytes: 81559 * MiB,
					memoryUsedBytes: 0,
					memoryPercent: 0,
					utilizationPercent: 0,
					temperatureC: 41,
					powerDrawW: 69.85,
					powerLimitW: 700,
				},
			],
		});
		expect(load.gpus[0]!.memoryPercent).toBeCloseTo((19818 / 81559) * 100, 10);
		expect(load.gpus[0]!.utilizationPercent).toBe(100);
		// sampledAt comes from the injected clock.
		expect(load.sampledAt).toBeGreaterThan(idle.sampledAt);
		expect(load.sampledAt).toBeLessThanOrEqual(clock);
		await okState(h, () => h.states.length >= 4);
		// One process for all those samples: not a spawn per tick.
		expect(fakeRuns(h.log).map(run => run.argv)).toEqual([LOOP_ARGS]);
	});

	it('publishes all 8 GPUs of a multi-GPU box in one sample', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: 'issue__gpustat-5-titanx-8gpu'});
		const state = await okState(h);
		expect(state.gpus.map(gpu => gpu.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
		expect(state.gpus[1]).toEqual({
			index: 1,
			uuid: 'GPU-86fe97db-bf54-a056-4e8d-9b07e1a298e7',
			name: 'GeForce GTX TITAN X',
			memoryTotalBytes: 12206 * MiB,
			memoryUsedBytes: 10032 * MiB,
			memoryPercent: (10032 / 12206) * 100,
			utilizationPercent: 86,
			// Recorded in 2016; power was not asked for then: the fake answers [N/A], read as null.
			temperatureC: 54,
			powerDrawW: null,
			powerLimitW: null,
		});
		// Every published sample is complete, never a partial one.
		expect(h.states.every(({state: s}) => s.status !== 'ok' || s.gpus.length === 8)).toBe(true);
	});

	it('reports MIG utilization [N/A] as null', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: 'cap-linux-h100-mig-590.48.01'});
		const state = await okState(h);
		expect(state.gpus[0]).toMatchObject({
			utilizationPercent: null,
			memoryUsedBytes: 59 * MiB,
			memoryTotalBytes: 81559 * MiB,
		});
	});

	it('reports GB10 unified memory [N/A] as null memory and null percent', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: 'issue__gb10-unified-memory', FAKE_NVSMI_FILL_MISSING: 'na'});
		const state = await okState(h);
		expect(state.gpus).toEqual([
			{
				index: 0,
				uuid: null,
				name: null,
				memoryTotalBytes: null,
				memoryUsedBytes: null,
				memoryPercent: null,
				utilizationPercent: 0,
				temperatureC: 35,
				powerDrawW: 11.17,
				powerLimitW: null,
			},
		]);
	});

	it('ignores event text between samples and copes with \\r\\n', async () => {
		const h = startReader({
			FAKE_NVSMI_SCENARIO: H100,
			FAKE_NVSMI_INJECT_LINE: 'Xid (PCI:0000:0b:00): 79, pid=0, GPU has fallen off the bus.',
			FAKE_NVSMI_CRLF: '1',
		});
		await okState(h, state => state.gpus[0]?.memoryUsedBytes === 19818 * MiB);
		await okState(h, state => state.gpus[0]?.memoryUsedBytes === 0);
		expect(statusTrail(h)).toEqual(['ok']);
		expect(fakeRuns(h.log)).toHaveLength(1);
	});
});

describe('no nvidia-smi', () => {
	it('is absent, without retries, when nvidia-smi is not on PATH (ENOENT)', async () => {
		const h = startReader({}, {env: {PATH: tempDir()}});
		// Started alongside: a reader that does retry (nvidia-smi not executable), on the same backoff.
		const retrying = startReader({}, {env: {PATH: nonExecutableNvidiaSmi()}});
		await waitFor(() => h.reader.getState().status === 'absent', 'absent');
		expect(h.reader.getState()).toEqual({
			status: 'absent',
			reason: 'nvidia-smi not found on PATH',
			source: 'nvidia-smi',
		});
		// Its third attempt comes after two backoffs (100 + 200 ms): time in which the absent one would have retried too.
		await waitFor(() => retrying.states.length >= 3, 'three attempts of the retrying reader');
		expect(h.states.map(({state}) => state.status)).toEqual(['absent']);
	});

	it('names the path when an explicit command does not exist', async () => {
		const h = startReader({}, {command: join(tempDir(), 'nvidia-smi')});
		await waitFor(() => h.reader.getState().status === 'absent', 'absent');
		expect(h.reader.getState()).toMatchObject({reason: expect.stringMatching(/^\/.*\/nvidia-smi not found$/)});
	});

	it('treats a non-executable nvidia-smi (EACCES) as an error and retries it', async () => {
		const h = startReader({}, {env: {PATH: nonExecutableNvidiaSmi()}});
		const error = await errorState(h);
		expect(error.message).toMatch(/EACCES/);
		// Retried: a second error after the first backoff, with the doubled delay.
		await waitFor(() => h.states.length >= 2, 'a second attempt');
		const [first, second] = h.states.map(({state}) => state);
		expect(first?.status === 'error' && second?.status === 'error').toBe(true);
	});
});

describe('nvidia-smi failures', () => {
	it.each([
		['err-driver-not-loaded', 'stdout', `${DRIVER_NOT_LOADED} (exit 9)`],
		['err-driver-not-loaded', 'stderr', `${DRIVER_NOT_LOADED} (exit 9)`],
		['err-driver-not-loaded', 'both', `${DRIVER_NOT_LOADED} (exit 9)`],
		['err-version-mismatch', 'stdout', 'Failed to initialize NVML: Driver/library version mismatch (exit 18)'],
		['err-nvml-unknown-error', 'stdout', 'Failed to initialize NVML: Unknown Error (exit 255)'],
		['err-no-supported-gpus', 'stdout', 'Failed to initialize NVML: No supported GPUs were found (exit 255)'],
		[
			'err-gpu-handle-unknown',
			'stdout',
			'Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error (exit 255)',
		],
	])('%s on %s → error with its text, then a retry', async (scenario, stream, message) => {
		const h = startReader({FAKE_NVSMI_SCENARIO: scenario, FAKE_NVSMI_STREAM: stream}, {processIntervalMs: 50});
		const error = await errorState(h);
		expect(error.message).toBe(message);
		expect(error.retryAt).not.toBeNull();
		await waitFor(() => fakeRuns(h.log).length >= 2, 'a restart');
		// Per-process sampling only runs while the devices answer.
		expect(fakeRuns(h.log, '--query-compute-apps')).toEqual([]);
	});

	it('no devices found → error with the text and a non-zero exit', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: 'err-no-devices-found'});
		const error = await errorState(h);
		expect(error.message).toMatch(/^No devices were found \(exit [1-9]\d*\)$/);
	});

	it('retries with a doubling backoff, capped, and restarts no earlier than announced', async () => {
		const now = (): number => Date.now();
		const h = startReader({FAKE_NVSMI_SCENARIO: 'err-driver-not-loaded'}, {now});
		await waitFor(() => fakeRuns(h.log).length >= 5, 'five starts', 8_000);
		const errors = h.states.flatMap(({state, at}) => (state.status === 'error' ? [{retryAt: state.retryAt!, at}] : []));
		const delays = errors.slice(0, 4).map(({retryAt, at}) => retryAt - at);
		for (const [delay, expected] of delays.map((d, i) => [d, [100, 200, 400, 400][i]!] as const)) {
			expect(delay).toBeGreaterThanOrEqual(expected - 5);
			expect(delay).toBeLessThanOrEqual(expected + 5);
		}
		// The log agrees: each start comes at least one announced delay after the previous failure.
		const starts = fakeRuns(h.log).map(run => run.t);
		for (let i = 1; i < 5; i++) {
			expect(starts[i]! - errors[i - 1]!.at).toBeGreaterThanOrEqual([100, 200, 400, 400][i - 1]! - 5);
		}
		expect(starts[3]! - starts[2]!).toBeGreaterThan(starts[1]! - starts[0]!);
	});

	it('fail-after-N: ok, then the error, then ok again when nvidia-smi works again', async () => {
		const h = startReader({
			FAKE_NVSMI_SCENARIO: H100,
			FAKE_NVSMI_FAIL_AFTER: '2',
			FAKE_NVSMI_FAIL_COUNT: '1',
			FAKE_NVSMI_FAIL_SCENARIO: 'err-driver-not-loaded',
			FAKE_NVSMI_STATE: join(tempDir(), 'state'),
		});
		await waitFor(() => statusTrail(h).length >= 3, 'ok → error → ok');
		expect(statusTrail(h)).toEqual(['ok', 'error', 'ok']);
		const error = h.states.find(({state}) => state.status === 'error')!.state;
		expect(error).toMatchObject({message: `${DRIVER_NOT_LOADED} (exit 9)`});
		expect(fakeRuns(h.log)).toHaveLength(2);
	});

	it('a good sample resets the backoff', async () => {
		// Every run gives one sample, then dies: the delay must stay at the initial one instead of doubling.
		const h = startReader({
			FAKE_NVSMI_SCENARIO: H100,
			FAKE_NVSMI_FAIL_AFTER: '1',
			FAKE_NVSMI_FAIL_SCENARIO: 'err-nvml-unknown-error',
		});
		await waitFor(() => h.states.filter(({state}) => state.status === 'error').length >= 3, 'three failures');
		const delays = h.states.flatMap(({state, at}) => (state.status === 'error' ? [state.retryAt! - at] : []));
		for (const delay of delays.slice(0, 3)) expect(Math.abs(delay - 100)).toBeLessThanOrEqual(5);
	});

	it('keeps the data and shows the infoROM warning (exit 14 after valid data)', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: 'warn-inforom-corrupted'});
		const state = await okState(h, s => s.warning !== null && h.states.length >= 4);
		expect(state.warning).toBe('WARNING: infoROM is corrupted at gpu 0000:0B:00.0');
		expect(state.gpus[0]?.memoryTotalBytes).toBe(81559 * MiB);
		expect(statusTrail(h)).toEqual(['ok']);
		expect(fakeRuns(h.log)).toHaveLength(1);
	});

	it('a loop that prints nothing but text is an error, with what it said', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'noise'}, {firstSampleTimeoutMs: 400});
		const error = await errorState(h);
		expect(error.message).toBe(
			'nvidia-smi stopped answering: no sample within 400 ms; it said: Xid (PCI:0000:0b:00): 79, pid=0, GPU has fallen off the bus.',
		);
	});
});

describe('hung nvidia-smi', () => {
	it('hang: no first sample in time → error, its group killed, restarted', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'hang'}, {firstSampleTimeoutMs: 300});
		const error = await errorState(h);
		expect(error.message).toBe('nvidia-smi stopped answering: no sample within 300 ms');
		const [hung] = fakeRuns(h.log);
		await waitFor(() => !isAlive(hung!.pid), 'the hung nvidia-smi to die', 2_000);
		await waitFor(() => fakeRuns(h.log).length >= 2, 'a restart');
		const errorAt = h.states.find(({state}) => state.status === 'error')!.at;
		expect(fakeRuns(h.log)[1]!.t).toBeGreaterThanOrEqual(errorAt + 100 - 5);
	});

	it('stale: samples stop coming → error after staleAfterIntervals, restart, and data again', async () => {
		const h = startReader(
			{FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_HANG_AFTER: '2'},
			// Test-sized: without the floor of a few seconds (nvidia-smi-faults.test.ts tests the floor).
			{staleAfterIntervals: 3, minStaleAfterMs: 0},
		);
		const error = await errorState(h);
		expect(error.message).toBe('nvidia-smi stopped answering: no sample for 300 ms');
		const [stuck] = fakeRuns(h.log);
		await waitFor(() => !isAlive(stuck!.pid), 'the stuck loop to die', 2_000);
		await waitFor(() => statusTrail(h).length >= 3, 'data again');
		expect(statusTrail(h).slice(0, 3)).toEqual(['ok', 'error', 'ok']);
	});

	it('hang-orphan: the grandchild holding stdout is killed with the group', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'hang-orphan'}, {firstSampleTimeoutMs: 300});
		const grandchild = await waitFor(
			() => readInvocations(h.log).find(entry => entry.role === 'grandchild'),
			'the grandchild',
		);
		const [fake] = fakeRuns(h.log);
		await errorState(h);
		await waitFor(() => !isAlive(fake!.pid) && !isAlive(grandchild.pid), 'fake and grandchild to die', 2_000);
		// And the supervisor did not wait for 'close' (which the grandchild would have held for 30 s): it restarted.
		await waitFor(() => fakeRuns(h.log).length >= 2, 'a restart', 3_000);
	});

	it('a hung nvidia-smi that ignores SIGTERM gets SIGKILL after killGraceMs, grandchild included', async () => {
		const h = startReader(
			{FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'hang-orphan', FAKE_NVSMI_IGNORE_TERM: '1'},
			{firstSampleTimeoutMs: 300, killGraceMs: 400},
		);
		const grandchild = await waitFor(
			() => readInvocations(h.log).find(entry => entry.role === 'grandchild'),
			'the grandchild',
		);
		const [fake] = fakeRuns(h.log);
		await errorState(h);
		const errorAt = Date.now();
		// The SIGTERM went to the group with the error. The group's death is the later event: not before killGraceMs
		// (so the SIGTERM did not end it, and no SIGKILL came early).
		expect(isAlive(fake!.pid)).toBe(true);
		await waitFor(() => !isAlive(fake!.pid) && !isAlive(grandchild.pid), 'SIGKILL of the group', 2_000);
		expect(Date.now() - errorAt).toBeGreaterThanOrEqual(350);
	});

	it('a grandchild that survives SIGTERM while still holding stdout is swept with SIGKILL once the leader is gone', async () => {
		// killGraceMs is long: only the sweep after the leader's exit can end the grandchild this soon.
		const h = startReader(
			{FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'hang-orphan', FAKE_NVSMI_ORPHAN_IGNORE_TERM: '1'},
			{firstSampleTimeoutMs: 300, killGraceMs: 5_000},
		);
		const grandchild = await waitFor(
			() => readInvocations(h.log).find(entry => entry.role === 'grandchild'),
			'the grandchild',
		);
		await errorState(h);
		await waitFor(() => !isAlive(grandchild.pid), 'the grandchild to die', 1_500);
	});

	it('partial: half a row is never taken as a sample', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'partial'}, {firstSampleTimeoutMs: 300});
		const error = await errorState(h);
		expect(error.message).toBe('nvidia-smi stopped answering: no sample within 300 ms');
		expect(h.states.some(({state}) => state.status === 'ok')).toBe(false);
	});
});

describe('per-process GPU memory', () => {
	it('reads the H100 load frame with one-shots: 3 pids and their bytes', async () => {
		let clock = 5_000;
		const h = startReader(
			{FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_FRAME: '2'},
			{processIntervalMs: 100, now: () => ++clock},
		);
		await waitFor(() => h.reader.getProcesses().sampledAt !== null, 'a process table');
		expect(h.reader.getProcesses()).toEqual({
			processes: [
				{pid: 11327, gpuUuid: H100_UUID, usedBytes: 2566 * MiB},
				{pid: 11328, gpuUuid: H100_UUID, usedBytes: 1542 * MiB},
				{pid: 11345, gpuUuid: H100_UUID, usedBytes: 15690 * MiB},
			],
			sampledAt: expect.any(Number),
			error: null,
		});
		await waitFor(() => fakeRuns(h.log, '--query-compute-apps').length >= 3, 'three one-shots');
		const oneShots = fakeRuns(h.log, '--query-compute-apps');
		expect(oneShots.every(run => JSON.stringify(run.argv) === JSON.stringify(COMPUTE_APPS_ARGS))).toBe(true);
		// About the interval (100 ms) apart. These are the fakes' own start times, after Node's start-up
		// inside each fake, which varies by tens of ms on a loaded machine: hence the margin.
		for (let i = 1; i < oneShots.length; i++) expect(oneShots[i]!.t - oneShots[i - 1]!.t).toBeGreaterThanOrEqual(60);
		expect(fakeRuns(h.log, '--query-gpu')).toHaveLength(1);
	});

	it('Windows WDDM: per-process memory [N/A] → usedBytes null', async () => {
		const h = startReader(
			{FAKE_NVSMI_SCENARIO: 'windows-x86_64__nvidia-geforce-rtx-2080-super__591.86'},
			{processIntervalMs: 100},
		);
		await waitFor(() => h.reader.getProcesses().sampledAt !== null, 'a process table');
		const {processes} = h.reader.getProcesses();
		expect(processes.map(process => process.pid)).toEqual([
			12444, 15076, 2056, 12332, 20372, 4680, 14160, 14184, 16280, 24804,
		]);
		expect(processes.every(process => process.usedBytes === null)).toBe(true);
	});

	it('an idle GPU has no processes: empty output is an empty table, not an error', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: H100}, {processIntervalMs: 100});
		await waitFor(() => h.reader.getProcesses().sampledAt !== null, 'a process table');
		expect(h.reader.getProcesses()).toMatchObject({processes: [], error: null});
	});

	it('a failed one-shot keeps the last good rows and sets error; the next good one clears it', async () => {
		const h = startReader(
			{
				FAKE_NVSMI_SCENARIO: H100,
				FAKE_NVSMI_FRAME: '2',
				FAKE_NVSMI_KNOBS_FOR: 'query-compute-apps',
				FAKE_NVSMI_FAIL_AFTER: '1',
				FAKE_NVSMI_FAIL_COUNT: '1',
				FAKE_NVSMI_FAIL_SCENARIO: 'err-nvml-unknown-error',
				FAKE_NVSMI_STATE: join(tempDir(), 'state'),
			},
			{processIntervalMs: 100},
		);
		// Calls: 1 answers the load frame, 2 fails, 3 answers the load frame again (two frames, walked from frame 2).
		await waitFor(() => h.tables.length >= 3, 'three process tables');
		const [good, failed, recovered] = h.tables;
		expect(good!.processes).toHaveLength(3);
		expect(failed).toEqual({...good, error: 'Failed to initialize NVML: Unknown Error (exit 255)'});
		expect(recovered).toEqual({processes: good!.processes, sampledAt: expect.any(Number), error: null});
		expect(recovered!.sampledAt).toBeGreaterThan(good!.sampledAt!);
		expect(h.reader.getState().status).toBe('ok');
	});

	it('a hung one-shot is killed at its timeout, and the next starts only after it is gone', async () => {
		// It ignores SIGTERM, so it is gone only killGraceMs (300 ms) after its timeout.
		const h = startReader(
			{
				FAKE_NVSMI_SCENARIO: H100,
				FAKE_NVSMI_KNOBS_FOR: 'query-compute-apps',
				FAKE_NVSMI_MODE: 'hang',
				FAKE_NVSMI_IGNORE_TERM: '1',
			},
			{processIntervalMs: 50, processTimeoutMs: 300, killGraceMs: 300},
		);
		await waitFor(() => h.reader.getProcesses().error !== null, 'a process error');
		expect(h.reader.getProcesses()).toEqual({
			processes: [],
			sampledAt: null,
			error: 'nvidia-smi --query-compute-apps did not answer within 300 ms',
		});
		const timedOutAt = h.tableTimes[0]!;
		// The runs as the fake logged them, once the second is in: on a loaded machine the hung one may not have written
		// its line yet when its timeout fired.
		await waitFor(() => fakeRuns(h.log, '--query-compute-apps').length >= 2, 'a second one-shot');
		const [first] = fakeRuns(h.log, '--query-compute-apps');
		expect(isAlive(first!.pid)).toBe(false);
		// Nothing new while the hung one was still alive: never two in flight.
		expect(fakeRuns(h.log, '--query-compute-apps')[1]!.t).toBeGreaterThanOrEqual(timedOutAt + 300 - 5);
		// The devices are unaffected.
		expect(h.reader.getState().status).toBe('ok');
	});
});

describe('stop', () => {
	it('stop() ends the loop and the one-shots, leaves nothing alive, starts nothing more, and is idempotent', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_FRAME: '2'}, {processIntervalMs: 20});
		// Started alongside and never stopped: its later samples and one-shots are the time in which h would have had its own.
		const running = startReader({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_FRAME: '2'}, {processIntervalMs: 20});
		await waitFor(() => h.reader.getProcesses().sampledAt !== null, 'a process table');
		const stopping = h.reader.stop();
		expect(h.reader.stop()).toBe(stopping);
		await stopping;
		const runs = fakeRuns(h.log);
		for (const run of runs) expect(isAlive(run.pid)).toBe(false);
		const count = runs.length;
		const statesAfterStop = h.states.length;
		const runningStates = running.states.length;
		const runningOneShots = fakeRuns(running.log, '--query-compute-apps').length;
		await waitFor(
			() =>
				running.states.length >= runningStates + 3 &&
				fakeRuns(running.log, '--query-compute-apps').length >= runningOneShots + 3,
			'three more samples and one-shots of the running reader',
		);
		expect(fakeRuns(h.log)).toHaveLength(count);
		expect(h.states).toHaveLength(statesAfterStop);
	});

	it('stop() during a hang-orphan kills the grandchild too', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'hang-orphan'});
		const grandchild = await waitFor(
			() => readInvocations(h.log).find(entry => entry.role === 'grandchild'),
			'the grandchild',
		);
		await h.reader.stop();
		const [fake] = fakeRuns(h.log);
		expect(isAlive(fake!.pid)).toBe(false);
		await waitFor(() => !isAlive(grandchild.pid), 'the grandchild to die', 1_000);
	});

	it('killNow() SIGKILLs every group synchronously', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'hang-orphan', FAKE_NVSMI_IGNORE_TERM: '1'});
		const grandchild = await waitFor(
			() => readInvocations(h.log).find(entry => entry.role === 'grandchild'),
			'the grandchild',
		);
		const [fake] = fakeRuns(h.log);
		h.reader.killNow();
		await waitFor(() => !isAlive(fake!.pid) && !isAlive(grandchild.pid), 'both to die', 1_000);
	});
});

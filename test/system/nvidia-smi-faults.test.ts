// Faults of a real (fake) nvidia-smi that once crashed or misled traintop: a line that never ends, output that never
// stops, a loop that pauses for a second. The reader runs in this process; the fake is a real child process.

import {afterAll, afterEach, describe, expect, it} from 'vitest';
import type {GpuState} from '../../src/core/types.js';
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

const H100 = 'cap-linux-h100-80gb-hbm3-590.48.01';

interface Harness {
	reader: NvidiaSmiReader;
	log: string;
	states: GpuState[];
}

const started: Harness[] = [];

afterAll(removeTempDirs);

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

function startReader(knobs: Knobs, options: Partial<NvidiaSmiOptions> = {}): Harness {
	const log = `${tempDir()}/log.jsonl`;
	const reader = new NvidiaSmiReader({
		intervalMs: 100,
		processIntervalMs: 0,
		backoffMs: {initial: 200, max: 400},
		killGraceMs: 300,
		env: fakeEnv({FAKE_NVSMI_LOG: log, ...knobs}),
		...options,
	});
	const harness: Harness = {reader, log, states: []};
	reader.subscribe(() => {
		const state = reader.getState();
		if (harness.states.at(-1) !== state) harness.states.push(state);
	});
	started.push(harness);
	reader.start();
	return harness;
}

describe('a line that never ends', () => {
	it('the loop: an error naming the cap, the fake killed, a restart after the backoff', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'endless-line'});
		// At ~1 GB/s an unbounded line buffer reaches V8's string limit in under a second: the cap must come first.
		const error = await waitFor(() => {
			const state = h.reader.getState();
			return state.status === 'error' ? state : undefined;
		}, 'an error state');
		expect(error.message).toBe('nvidia-smi printed a line of more than 64 KiB without a newline');
		const [first] = fakeRuns(h.log);
		await waitFor(() => !isAlive(first!.pid), 'the endless nvidia-smi to be killed', 2_000);
		// Treated like any failure: started again after the backoff, failing the same way.
		await waitFor(() => fakeRuns(h.log).length >= 2, 'a restart', 3_000);
		expect(h.states.some(state => state.status === 'ok')).toBe(false);
		expect(process.memoryUsage().rss).toBeLessThan(1024 * 1_048_576);
	});

	it('a compute-apps one-shot: its output is capped too, an error in the table, the one-shot killed', async () => {
		const h = startReader(
			{FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'endless-line', FAKE_NVSMI_KNOBS_FOR: 'query-compute-apps'},
			{processIntervalMs: 100},
		);
		const table = await waitFor(() => {
			const processes = h.reader.getProcesses();
			return processes.error === null ? undefined : processes;
		}, 'a table error');
		expect(table.error).toBe('nvidia-smi --query-compute-apps printed more than 1 MiB');
		const [oneShot] = fakeRuns(h.log, '--query-compute-apps');
		await waitFor(() => !isAlive(oneShot!.pid), 'the endless one-shot to be killed', 2_000);
		// The devices' loop is not affected.
		expect(h.reader.getState().status).toBe('ok');
	});
});

describe('"stopped answering" has a floor', () => {
	it('at a 0.1 s interval a loop that pauses 1.5 s is waited for, not killed and restarted', async () => {
		// The default staleness: 3 intervals would be 300 ms here; the floor of a few seconds must win.
		const h = startReader({FAKE_NVSMI_SCENARIO: H100});
		await waitFor(() => h.reader.getState().status === 'ok', 'a first sample');
		const [loop] = fakeRuns(h.log);
		// A real pause: the loop process stopped by the kernel (a driver call that takes a while looks the same).
		process.kill(loop!.pid, 'SIGSTOP');
		const stoppedAt = Date.now();
		await new Promise(resolve => setTimeout(resolve, 1_500));
		process.kill(loop!.pid, 'SIGCONT');
		await waitFor(() => {
			const state = h.reader.getState();
			return state.status === 'ok' && state.sampledAt > stoppedAt + 1_500;
		}, 'a sample after the pause');
		expect(h.states.some(state => state.status === 'error')).toBe(false);
		expect(fakeRuns(h.log)).toHaveLength(1);
		expect(isAlive(loop!.pid)).toBe(true);
	});
});

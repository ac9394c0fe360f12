// An older driver that does not know a sensor field refuses the whole query (`Field "x" is not a valid field to
// query.`, exit 2). The reader must then ask again without that field, once, and keep it out: memory is never lost
// for a temperature. Run against the fake nvidia-smi playing such a driver (FAKE_NVSMI_INVALID_FIELDS).

import {join} from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import type {GpuState} from '../../src/core/types.js';
import {NvidiaSmiReader} from '../../src/system/nvidia-smi.js';
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
const MiB = 1_048_576;
const BASE = 'timestamp,count,index,uuid,name,memory.total,memory.used,utilization.gpu';

interface Harness {
	reader: NvidiaSmiReader;
	log: string;
	statuses: GpuState['status'][];
}

const started: Harness[] = [];

afterAll(removeTempDirs);

afterEach(async () => {
	for (const h of started.splice(0)) {
		await h.reader.stop();
		killAll(
			readInvocations(h.log)
				.map(entry => entry.pid)
				.filter(isAlive),
		);
	}
});

function startReader(knobs: Knobs): Harness {
	const log = join(tempDir(), 'log.jsonl');
	const reader = new NvidiaSmiReader({
		intervalMs: 100,
		processIntervalMs: 0,
		firstSampleTimeoutMs: 5_000,
		staleAfterIntervals: 20,
		backoffMs: {initial: 100, max: 400},
		killGraceMs: 300,
		env: fakeEnv({FAKE_NVSMI_LOG: log, ...knobs}),
	});
	const h: Harness = {reader, log, statuses: []};
	reader.subscribe(() => h.statuses.push(reader.getState().status));
	started.push(h);
	reader.start();
	return h;
}

function okState(h: Harness, predicate: (state: Extract<GpuState, {status: 'ok'}>) => boolean = () => true) {
	return waitFor(() => {
		const state = h.reader.getState();
		return state.status === 'ok' && predicate(state) ? state : undefined;
	}, 'an ok state');
}

/** The --query-gpu field list of each loop the reader started, in order. */
function queries(h: Harness): string[] {
	return fakeRuns(h.log).map(run => (run.argv?.[0] ?? '').replace('--query-gpu=', ''));
}

describe('a driver that does not know a sensor field', () => {
	it('one unknown field: asked again at once without it, the others kept, no error shown', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_INVALID_FIELDS: 'power.draw'});
		const state = await okState(h);
		expect(state.gpus[0]).toMatchObject({
			memoryTotalBytes: 81559 * MiB,
			utilizationPercent: 0,
			temperatureC: 41,
			powerDrawW: null,
			powerLimitW: 700,
		});
		expect(queries(h)).toEqual([
			`${BASE},temperature.gpu,power.draw,power.limit`,
			`${BASE},temperature.gpu,power.limit`,
		]);
		expect(h.statuses).not.toContain('error');
		// Remembered: later samples come from the same second loop, no third start.
		await okState(h, s => s.gpus[0]?.memoryUsedBytes === 19818 * MiB);
		expect(fakeRuns(h.log)).toHaveLength(2);
	});

	it('every sensor unknown: one field dropped per refusal, down to the base query that every driver answers', async () => {
		const h = startReader({
			FAKE_NVSMI_SCENARIO: H100,
			FAKE_NVSMI_INVALID_FIELDS: 'temperature.gpu,power.draw,power.limit',
		});
		const state = await okState(h);
		expect(state.gpus[0]).toMatchObject({
			memoryUsedBytes: 0,
			temperatureC: null,
			powerDrawW: null,
			powerLimitW: null,
		});
		expect(queries(h)).toEqual([
			`${BASE},temperature.gpu,power.draw,power.limit`,
			`${BASE},power.draw,power.limit`,
			`${BASE},power.limit`,
			BASE,
		]);
		expect(h.statuses).not.toContain('error');
	});

	it('a base field refused is an error like any other, with the driver’s words, and retried with backoff', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_INVALID_FIELDS: 'memory.used'});
		const error = await waitFor(() => {
			const state = h.reader.getState();
			return state.status === 'error' ? state : undefined;
		}, 'an error state');
		expect(error.message).toBe('Field "memory.used" is not a valid field to query. (exit 2)');
		await waitFor(() => fakeRuns(h.log).length >= 2, 'a retry');
		// The retry asks for the same fields: nothing was dropped.
		expect(new Set(queries(h)).size).toBe(1);
	});
});

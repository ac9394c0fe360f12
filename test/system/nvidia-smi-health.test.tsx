// GPU health in the long-lived nvidia-smi loop: the REAL reader (NvidiaSmiReader) against the fake nvidia-smi
// replaying the H200 recordings (driver 580.159.04, 2026-11-28: test/fixtures/nvidia-smi/csv/h200__health-*.json, the
// same node's `--help-query-gpu` in test/fixtures/nvidia-smi/help/). The throttle and ECC variants are the busy
// recording with ONE column's value changed in every row, nothing else (test/helpers/h200-health.ts): `hw_thermal_slowdown`
// `Not Active` → `Active`, `ecc.errors.uncorrected.volatile.total` `0` → `3`.

import {join} from 'node:path';
import {cleanup} from 'ink-testing-library';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {gpuHealthProblems} from '../../src/core/gpu-health.js';
import {GpuHealthJudge} from '../../src/core/gpu-health-judge.js';
import type {JobEvent} from '../../src/core/job-types.js';
import type {GpuState} from '../../src/core/types.js';
import {NvidiaSmiReader} from '../../src/system/nvidia-smi.js';
import MemoryPane from '../../src/ui/panes/MemoryPane.js';
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
import {h200Variant} from '../helpers/h200-health.js';
import {hostMemory} from '../helpers/snapshots.js';
import {expectFits, NOW, renderOnTerminal, status} from '../ui/fixtures.js';

const MiB = 1_048_576;
const IDLE = 'h200-health-idle';
const BUSY = 'h200-health-busy';
const H200_TOTAL = 143771 * MiB;

type Ok = Extract<GpuState, {status: 'ok'}>;

interface Harness {
	reader: NvidiaSmiReader;
	log: string;
	/** Every new sample the reader published, in order. */
	samples: Ok[];
	/** What the judge made of them, as the Monitor runs it (one call per sample). */
	events: JobEvent[];
}

const started: Harness[] = [];
afterAll(removeTempDirs);
afterEach(async () => {
	cleanup();
	for (const h of started.splice(0)) {
		await h.reader.stop();
		killAll(
			readInvocations(h.log)
				.map(entry => entry.pid)
				.filter(isAlive),
		);
	}
});

function startReader(knobs: Knobs, healthHelpTimeoutMs = 5_000): Harness {
	const log = join(tempDir(), 'log.jsonl');
	const reader = new NvidiaSmiReader({
		intervalMs: 100,
		processIntervalMs: 0,
		firstSampleTimeoutMs: 10_000,
		staleAfterIntervals: 50,
		backoffMs: {initial: 100, max: 400},
		killGraceMs: 300,
		health: true,
		healthHelpTimeoutMs,
		env: fakeEnv({FAKE_NVSMI_LOG: log, ...knobs}),
	});
	const judge = new GpuHealthJudge();
	const h: Harness = {reader, log, samples: [], events: []};
	reader.subscribe(() => {
		const state = reader.getState();
		if (state.status !== 'ok' || h.samples.at(-1)?.sampledAt === state.sampledAt) return;
		h.samples.push(state);
		h.events.push(...judge.judge(state, Date.now()));
	});
	started.push(h);
	reader.start();
	return h;
}

const samples = (h: Harness, n: number) => waitFor(() => h.samples.length >= n, `${n} samples`, 20_000);

const THERMAL = () => h200Variant('clocks_event_reasons.hw_thermal_slowdown', 'Active');
const ECC = () => h200Variant('ecc.errors.uncorrected.volatile.total', '3');

/** The loop's query (its `--query-gpu=` list), from the fake's invocation log. */
function loopFields(h: Harness, nth = 0): string[] {
	const arg = fakeRuns(h.log, '--query-gpu=')[nth]?.argv?.find(a => a.startsWith('--query-gpu='));
	return arg === undefined ? [] : arg.slice('--query-gpu='.length).split(',');
}

/** The memory pane's GPU0 line, rendered by the real Ink tree from the reader's state. */
function gpuLine(state: GpuState, width = 160): string {
	const props = {
		host: 'h200',
		memory: hostMemory(20, 0),
		memoryError: null,
		gpu: state,
		metrics: {ram: status(20, 'ok', 85), swap: status(0, 'ok', 50), gpu0: status(0.6, 'ok', 90)},
		now: NOW,
		width,
		height: 5,
	} as const;
	const {lastFrame} = renderOnTerminal(<MemoryPane {...props} />, width);
	const line = expectFits(lastFrame(), width, props.height).find(l => l.startsWith('GPU0'));
	if (line === undefined) throw new Error(`no GPU0 line in\n${lastFrame()}`);
	return line;
}

describe('the H200 recordings through the real reader', () => {
	it('idle: every health field read as recorded, no problem, memory as before; help asked once', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: IDLE});
		await samples(h, 3);
		const reading = h.samples.at(-1)!.gpus[0]!;
		expect(reading.memoryTotalBytes).toBe(H200_TOTAL);
		expect(reading.memoryUsedBytes).toBe(0);
		expect(reading.health).toEqual({
			throttle: [],
			eccMode: 'enabled',
			eccCorrected: 0,
			eccUncorrected: 0,
			retiredPagesPending: null,
			remappedRowsPending: false,
			remappedRowsFailure: false,
			remappedRowsUncorrectable: 0,
			migMode: 'disabled',
			memoryTemperatureC: 38,
		});
		expect(gpuHealthProblems(reading.health)).toEqual([]);
		expect(h.events).toEqual([]);
		expect(fakeRuns(h.log, '--help-query-gpu')).toHaveLength(1);
		// Asked after the sensors, by the names this driver's help lists first.
		expect(loopFields(h).slice(11)).toEqual([
			'clocks_event_reasons.sw_power_cap',
			'clocks_event_reasons.hw_slowdown',
			'clocks_event_reasons.hw_thermal_slowdown',
			'clocks_event_reasons.sw_thermal_slowdown',
			'clocks_event_reasons.hw_power_brake_slowdown',
			'ecc.mode.current',
			'ecc.errors.corrected.volatile.total',
			'ecc.errors.uncorrected.volatile.total',
			'retired_pages.pending',
			'remapped_rows.pending',
			'remapped_rows.failure',
			'remapped_rows.uncorrectable',
			'mig.mode.current',
			'temperature.memory',
		]);
		expect(gpuLine(h.samples.at(-1)!)).not.toMatch(/slowdown|ECC|power cap/);
	});

	it('busy: the power cap at full load is shown on the GPU line and never alerted', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: BUSY});
		// The recording's 15 samples: its power-capped stretch (samples 6 to 15) whole.
		await samples(h, 16);
		const capped = h.samples.find(s => s.gpus[0]!.health?.throttle?.includes('sw_power_cap'));
		expect(capped, 'a power-capped sample').toBeDefined();
		expect(capped!.gpus[0]!.memoryUsedBytes).toBe(883 * MiB);
		expect(gpuHealthProblems(capped!.gpus[0]!.health)).toEqual([{code: 'power-cap', level: 'ok', count: null}]);
		expect(h.events).toEqual([]);
		expect(gpuLine(capped!)).toMatch(/ {2}power cap$/);
	});

	it('a thermal slowdown: one WARN alert for the episode, and on the GPU line', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: THERMAL()});
		await samples(h, 12);
		expect(h.samples.at(-1)!.gpus[0]!.health?.throttle).toContain('hw_thermal_slowdown');
		expect(h.events.map(e => [e.kind, e.level, e.job, e.text])).toEqual([
			['gpu-health', 'warn', null, 'GPU0 throttled: thermal slowdown'],
		]);
		const line = gpuLine(h.samples.at(-1)!);
		expect(line).toMatch(/^GPU0 .* thermal slowdown/);
		expect(line).toContain('0.6% ok');
	});

	it('an uncorrectable ECC count: one CRIT alert, and on the GPU line', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: ECC()});
		await samples(h, 8);
		expect(h.samples.at(-1)!.gpus[0]!.health?.eccUncorrected).toBe(3);
		expect(h.events.map(e => [e.kind, e.level, e.text])).toEqual([
			['gpu-health', 'critical', 'GPU0: 3 uncorrectable ECC errors since the driver loaded'],
		]);
		expect(gpuLine(h.samples.at(-1)!)).toMatch(/^GPU0 .* 3 uncorrectable ECC/);
	});
});

describe('the captures of other drivers (590/591), their own help and rows', () => {
	it('an H100 in MIG mode: said on the GPU line, never alerted', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: 'cap-linux-h100-mig-590.48.01'});
		await samples(h, 4);
		const health = h.samples.at(-1)!.gpus[0]!.health;
		expect(health?.migMode).toBe('enabled');
		// This driver answers N/A for the remapped rows in MIG mode: unknown, not fine and not a problem.
		expect(health?.remappedRowsFailure).toBeNull();
		expect(gpuHealthProblems(health)).toEqual([{code: 'mig-on', level: 'ok', count: null}]);
		expect(h.events).toEqual([]);
		expect(gpuLine(h.samples.at(-1)!)).toMatch(/ {2}MIG on$/);
	});

	it('a GeForce on Windows with no ECC: every health value N/A, unknown, no problem', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: 'cap-windows-geforce-rtx-2080-super-591.86'});
		await samples(h, 2);
		const health = h.samples.at(-1)!.gpus[0]!.health;
		expect(health).toMatchObject({throttle: [], eccMode: null, eccUncorrected: null, memoryTemperatureC: null});
		expect(gpuHealthProblems(health)).toEqual([]);
	});
});

describe('drivers that do not know a health field keep the memory readings', () => {
	it('a help without `temperature.memory`: not asked, read as unknown, one loop', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: IDLE, FAKE_NVSMI_UNKNOWN_NAMES: 'temperature.memory'});
		await samples(h, 3);
		expect(loopFields(h)).not.toContain('temperature.memory');
		expect(fakeRuns(h.log, '--query-gpu=')).toHaveLength(1);
		const reading = h.samples.at(-1)!.gpus[0]!;
		expect(reading.memoryTotalBytes).toBe(H200_TOTAL);
		expect(reading.health?.memoryTemperatureC).toBeNull();
		expect(reading.health?.eccMode).toBe('enabled');
	});

	it('a driver that refuses a health field its help listed: asked again without it, memory kept', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: IDLE, FAKE_NVSMI_INVALID_FIELDS: 'remapped_rows.failure'});
		await samples(h, 3);
		const loops = fakeRuns(h.log, '--query-gpu=');
		expect(loops).toHaveLength(2);
		expect(loopFields(h, 0)).toContain('remapped_rows.failure');
		expect(loopFields(h, 1)).not.toContain('remapped_rows.failure');
		const reading = h.samples.at(-1)!.gpus[0]!;
		expect(reading.memoryTotalBytes).toBe(H200_TOTAL);
		expect(reading.health?.remappedRowsFailure).toBeNull();
		expect(reading.health?.remappedRowsPending).toBe(false);
	});

	it('an old driver (before 535) that knows only `clocks_throttle_reasons.*`: asked by that name, read the same', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: THERMAL(), FAKE_NVSMI_UNKNOWN_NAMES: 'clocks_event_reasons.*'});
		await samples(h, 4);
		const fields = loopFields(h);
		expect(fields).toContain('clocks_throttle_reasons.hw_thermal_slowdown');
		expect(fields.some(f => f.startsWith('clocks_event_reasons.'))).toBe(false);
		expect(fakeRuns(h.log, '--query-gpu=')).toHaveLength(1);
		expect(h.samples.at(-1)!.gpus[0]!.health?.throttle).toContain('hw_thermal_slowdown');
		expect(h.events.map(e => e.text)).toEqual(['GPU0 throttled: thermal slowdown']);
	});

	it('no help recorded (the fake cannot answer it): no health asked, readings as without health', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: 'issue-titanx-8gpu-noheader-nounits'});
		await samples(h, 2);
		expect(loopFields(h)).toHaveLength(11);
		expect(h.samples.at(-1)!.gpus).toHaveLength(8);
		expect('health' in h.samples.at(-1)!.gpus[0]!).toBe(false);
	});

	it('a help that hangs: given up after its timeout, its process group ended, the loop started without health', async () => {
		const h = startReader(
			{FAKE_NVSMI_SCENARIO: IDLE, FAKE_NVSMI_MODE: 'hang', FAKE_NVSMI_KNOBS_FOR: 'help-query-gpu'},
			500,
		);
		await samples(h, 2);
		expect(loopFields(h)).toHaveLength(11);
		const [help] = fakeRuns(h.log, '--help-query-gpu');
		await waitFor(() => !isAlive(help!.pid), 'the hung help to be ended');
	});

	it('no nvidia-smi at all: absent, as without health', async () => {
		const h = startReader({PATH: tempDir()});
		const state = await waitFor(() => {
			const now = h.reader.getState();
			return now.status === 'absent' ? now : undefined;
		}, 'the absent state');
		expect(state).toEqual({status: 'absent', reason: 'nvidia-smi not found on PATH', source: 'nvidia-smi'});
	});

	it('stop() during the help ends it and starts no loop', async () => {
		const h = startReader({FAKE_NVSMI_SCENARIO: IDLE, FAKE_NVSMI_MODE: 'hang', FAKE_NVSMI_KNOBS_FOR: 'help-query-gpu'});
		const help = await waitFor(() => fakeRuns(h.log, '--help-query-gpu')[0], 'the help to start');
		await h.reader.stop();
		expect(isAlive(help.pid)).toBe(false);
		expect(fakeRuns(h.log, '--query-gpu=')).toEqual([]);
	});
});

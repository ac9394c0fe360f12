import {afterAll, describe, expect, test} from 'vitest';
import {
	fakeEnv,
	isAlive,
	killAll,
	readInvocations,
	removeTempDirs,
	tempDir,
} from '../helpers/fake-nvidia-smi/harness.js';
import {h200Variant} from '../helpers/h200-health.js';
import {startCli} from '../helpers/run-cli.js';

// The built CLI, headless, on the fake nvidia-smi replaying the H200's busy recording (driver 580.159.04) with ONE
// value changed (test/helpers/h200-health.ts): its GPU's health problems are alert lines as they begin, once each,
// and `gpu-health` events in --json; the GPU's memory is read as before.

afterAll(removeTempDirs);

const FAST = ['--interval', '0.1', '--log-interval', '0.5', '--no-log', '--match', 'no-such-job-[0-9]{40}'];

async function headless(scenario: string, extra: readonly string[], until: (out: string) => boolean): Promise<string> {
	const calls = `${tempDir()}/calls.jsonl`;
	const run = startCli([...extra, ...FAST], {env: fakeEnv({FAKE_NVSMI_SCENARIO: scenario, FAKE_NVSMI_LOG: calls})});
	try {
		await run.waitFor(o => until(o.stdout + o.stderr), 20_000);
		run.child.kill('SIGINT');
		expect(await run.exited).toBe(0);
		return run.stdout() + run.stderr();
	} finally {
		killAll(
			readInvocations(calls)
				.map(entry => entry.pid)
				.filter(isAlive),
		);
	}
}

describe('GPU health in headless', () => {
	test('a thermal slowdown: one WARN line for the episode, memory figures as before', async () => {
		const hot = h200Variant('clocks_event_reasons.hw_thermal_slowdown', 'Active');
		// Well past the first alert: three status lines, some 15 samples at 0.1 s.
		const out = await headless(hot, [], text => (text.match(/ gpu0 0\.6%/g) ?? []).length >= 3);
		expect(out.match(/WARN GPU0 throttled: thermal slowdown/g)).toHaveLength(1);
		expect(out).not.toMatch(/power cap/);
	});

	test('an uncorrectable ECC count: a gpu-health event in --json, critical, tied to no job', async () => {
		const ecc = h200Variant('ecc.errors.uncorrected.volatile.total', '3');
		const out = await headless(ecc, ['--json'], text => text.includes('"event":"gpu-health"'));
		const events = out
			.split('\n')
			.filter(line => line.includes('"event":"gpu-health"'))
			.map(line => JSON.parse(line) as Record<string, unknown>);
		expect(events).toEqual([
			expect.objectContaining({
				event: 'gpu-health',
				job: null,
				level: 'critical',
				text: 'GPU0: 3 uncorrectable ECC errors since the driver loaded',
			}),
		]);
	});
});

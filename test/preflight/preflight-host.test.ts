import {truncateSync, writeFileSync} from 'node:fs';
import {statfs} from 'node:fs/promises';
import path from 'node:path';
import {afterAll, describe, expect, test} from 'vitest';
import {mkdir, seedCheckpoint, seedMetadata} from '../checkpoints/fixtures.js';
import {fakeEnv} from '../helpers/fake-nvidia-smi/harness.js';
import {
	NO_NVIDIA_SMI,
	removeTempDirs,
	ROOMY,
	runPreflight,
	runPreflightJson,
	TINY,
	tempDir,
	unwrap,
} from './run-preflight.js';

// `traintop preflight`'s checks of this machine besides RAM: the run dir's disk against real checkpoints in a temp
// dir (the seed's layout as the demo job writes it; a sparse file for one bigger than the disk), and the GPUs from
// nvidia-smi as a real child process (the fake first on PATH, a failing one, or none at all).

afterAll(removeTempDirs);

describe('disk', () => {
	test("the seed's checkpoints: the newest one's size × the saves keep-N still allows, against free space", async () => {
		const runDir = tempDir();
		const t0 = Math.floor(Date.now() / 1000) * 1000 - 60_000;
		const saves = [100, 200].map((step, i) =>
			seedCheckpoint(runDir, {step, epoch: 0, kind: 'periodic', time: t0 + i * 10_000}),
		);
		seedMetadata(runDir, saves, 4);
		const {code, json} = await runPreflightJson([runDir], {}, {settings: ROOMY});
		expect(code).toBe(0);
		const newest = saves[1]!;
		expect(json.disk).toMatchObject({
			run_dir: runDir,
			status: 'fits',
			checkpoint: newest.name,
			checkpoint_bytes: newest.bytes,
			keep: 4,
			kept: 2,
			saves: 3,
			needed_bytes: newest.bytes * 3,
		});
		expect(json.disk.rule).toMatch(
			/^newest checkpoint [\d.]+ KiB × \(keep 4 − 2 kept \+ 1 being written\) = [\d.]+ KiB$/,
		);
		expect(json.disk.free_bytes).toBeGreaterThan(newest.bytes * 3);
	});

	test('a checkpoint bigger than the free space (a sparse file): will not fit, exit 4 without any estimate', async () => {
		const runDir = tempDir();
		const stats = await statfs(runDir);
		const free = stats.bavail * stats.bsize;
		const huge = path.join(mkdir(runDir, 'ckpt_step_100'), 'model.bin');
		writeFileSync(huge, '');
		truncateSync(huge, free + 2 ** 30);
		const run = await runPreflight([runDir]);
		expect(run.code).toBe(4);
		expect(run.stdout).toMatch(/^Disk {6}WILL NOT FIT: .* free, .* needed$/m);
		expect(unwrap(run.stdout)).toContain('× 1 (no keep-N known: every save adds one; --keep N sets it)');
		const empty = await runPreflightJson([tempDir()]);
		expect(empty.json.disk).toMatchObject({
			status: 'unknown',
			rule: 'no complete checkpoint yet: the size of a save is not known',
		});
		expect(empty.code).toBe(0);
	});
});

describe('GPUs', () => {
	test('free memory per device from the fake nvidia-smi; a device over its warn line is marked', async () => {
		const env = fakeEnv({FAKE_NVSMI_SCENARIO: 'issue__bpytop-26-dual'});
		const gpuSettings = {...ROOMY, nvidiaSmi: 'nvidia-smi'};
		const {json} = await runPreflightJson([], TINY, {env, settings: gpuSettings});
		const MiB = 1024 ** 2;
		expect(json.gpus.status).toBe('ok');
		expect(json.gpus.devices).toMatchObject([
			{index: 0, name: 'GeForce GTX 1080 Ti', total_bytes: 11175 * MiB, free_bytes: 8319 * MiB, busy: false},
			{index: 1, name: 'GeForce GTX 1060 6GB', total_bytes: 6078 * MiB, free_bytes: 6074 * MiB, busy: false},
		]);
		// 2856 of 11175 MiB is 25.6 %: over a warn line at 30 − 10 = 20 %.
		const text = await runPreflight([], TINY, {env, settings: {...gpuSettings, gpuThreshold: 30, warnMargin: 10}});
		expect(unwrap(text.stdout)).toContain(
			'gpu0 GeForce GTX 1080 Ti: 8.1 GiB free of 10.9 GiB; 25.6% used already: another job?',
		);
		expect(text.stdout).toContain('gpu1 GeForce GTX 1060 6GB: 5.9 GiB free of 5.9 GiB\n');
	});

	test('no nvidia-smi, or one that fails, is said and is not an error', async () => {
		const absent = await runPreflight([], TINY, {settings: ROOMY});
		expect(absent.code).toBe(0);
		expect(absent.stdout).toContain(`GPUs      none read: ${NO_NVIDIA_SMI} not found`);
		const env = fakeEnv({FAKE_NVSMI_SCENARIO: 'err-driver-not-loaded'});
		const failing = await runPreflightJson([], TINY, {env, settings: {...ROOMY, nvidiaSmi: 'nvidia-smi'}});
		expect(failing.code).toBe(0);
		expect(failing.json.gpus).toMatchObject({status: 'error', devices: []});
		expect(failing.json.gpus.reason).toContain("couldn't communicate with the NVIDIA driver");
	});
});

import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {loadClusterConfig} from '../../src/cluster/cluster-config.js';
import type {NodeConfig} from '../../src/cluster/cluster-schema.js';
import {clusterGpuThresholds} from '../../src/cluster/gpu-thresholds.js';
import {formatGpuThresholds} from '../../src/config/gpu-thresholds.js';
import {loadConfigFile, loadSettings, settingsFromFlags} from '../../src/config/load.js';
import {UsageError} from '../../src/core/errors.js';

// Per-GPU thresholds: the --gpu-thresholds flag and config key, and a cluster.yaml's reserve factors as each listed
// GPU's default, which anything the user set explicitly overrides.

const SEED_SAMPLE = path.join(import.meta.dirname, '..', 'fixtures', 'cluster', 'seed-sample.yaml');
// Two of the eight TITAN X of the gpustat#5 recording (test/fixtures/nvidia-smi/csv).
const GPU1 = 'GPU-86fe97db-bf54-a056-4e8d-9b07e1a298e7';
const GPU2 = 'GPU-2090c509-a97a-e2fe-68f4-cf9e874c36f2';

let dir: string;
let nodes: readonly NodeConfig[];
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-gpu-thresholds-'));
	nodes = (await loadClusterConfig(SEED_SAMPLE)).nodes;
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

const node = (name: string) => nodes.find(n => n.name === name)!;

describe('--gpu-thresholds', () => {
	test('UUID=PCT entries become a uuid → percent map', () => {
		const {gpuThresholds} = settingsFromFlags({gpuThresholds: `${GPU1}=60, ${GPU2}=72.5`});
		expect(gpuThresholds).toEqual(
			new Map([
				[GPU1, 60],
				[GPU2, 72.5],
			]),
		);
	});

	test.each([
		['GPU-1=0', '--gpu-thresholds entry for GPU "GPU-1" must be a percentage from 1 to 100'],
		['GPU-1=101', '--gpu-thresholds entry for GPU "GPU-1" must be a percentage from 1 to 100'],
		['GPU-1=abc', '--gpu-thresholds entry for GPU "GPU-1" must be a percentage from 1 to 100'],
		['GPU-1=', '--gpu-thresholds entry for GPU "GPU-1" must be a percentage from 1 to 100'],
		['=60', '--gpu-thresholds has an entry with no GPU uuid before "="'],
		['GPU-1', '--gpu-thresholds entry "GPU-1" is not UUID=PCT (a GPU uuid, "=", a percentage)'],
		['GPU-1=60,,GPU-2=70', '--gpu-thresholds has an empty entry (a comma-separated list of UUID=PCT)'],
		['GPU-1=60,GPU-1=70', '--gpu-thresholds lists GPU "GPU-1" twice'],
		['GPU 1=60', '--gpu-thresholds has GPU uuid "GPU 1", which holds a space, "," or "=" (no GPU uuid does)'],
	])('%s → an error naming the flag and the entry', (text, message) => {
		expect(() => settingsFromFlags({gpuThresholds: text})).toThrow(new UsageError(`${message} (got '${text}')`));
	});

	test('the config file key takes an object of uuid → percent, and names the file, key and GPU when wrong', async () => {
		const good = path.join(dir, 'good.json');
		await writeFile(good, JSON.stringify({gpuThresholds: {[GPU1]: 60}}));
		expect((await loadConfigFile(good)).gpuThresholds).toEqual(new Map([[GPU1, 60]]));
		const bad = path.join(dir, 'bad.json');
		await writeFile(bad, JSON.stringify({gpuThresholds: {[GPU1]: '60%'}}));
		await expect(loadConfigFile(bad)).rejects.toThrow(
			new UsageError(
				`config file ${bad}: key "gpuThresholds" entry for GPU "${GPU1}" must be a percentage from 1 to 100 (got {"${GPU1}":"60%"})`,
			),
		);
		const list = path.join(dir, 'list.json');
		await writeFile(list, JSON.stringify({gpuThresholds: [60]}));
		await expect(loadConfigFile(list)).rejects.toThrow(
			new UsageError(
				`config file ${list}: key "gpuThresholds" must be UUID=PCT[,UUID=PCT…] or an object {"UUID": PCT} (got [60])`,
			),
		);
	});
});

describe('clusterGpuThresholds: reserve factors unless the user set a threshold', () => {
	test("each listed GPU gets its memory type's reserve factor: discrete 85 %, unified 60 %; no GPUs, none", () => {
		expect(clusterGpuThresholds(node('desktop'), {})).toEqual(new Map([['GPU-abcd-1234', 85]]));
		expect(clusterGpuThresholds(node('jetson'), {})).toEqual(new Map([['GPU-efgh-5678', 60]]));
		expect(clusterGpuThresholds(node('intel-box'), {}).size).toBe(0);
	});

	test('a --gpu-thresholds entry wins for its GPU; entries for GPUs the file does not list are kept', () => {
		const given = {
			gpuThresholds: new Map([
				['GPU-efgh-5678', 70],
				[GPU1, 50],
			]),
		};
		expect(clusterGpuThresholds(node('jetson'), given)).toEqual(
			new Map([
				['GPU-efgh-5678', 70],
				[GPU1, 50],
			]),
		);
	});

	test('a --gpu-threshold for all GPUs replaces the reserve factors; a per-GPU entry still wins over it', () => {
		expect(clusterGpuThresholds(node('desktop'), {gpuThreshold: 95}).size).toBe(0);
		expect(clusterGpuThresholds(node('desktop'), {gpuThreshold: 95, gpuThresholds: new Map([[GPU2, 40]])})).toEqual(
			new Map([[GPU2, 40]]),
		);
	});

	test("from the settings chain: the default 90 is not the user's, a config file's gpuThreshold is", async () => {
		const defaults = await loadSettings({}, {});
		expect(defaults.settings.gpuThreshold).toBe(90);
		expect(clusterGpuThresholds(node('jetson'), defaults.given)).toEqual(new Map([['GPU-efgh-5678', 60]]));

		const file = path.join(dir, 'gpu-threshold.json');
		await writeFile(file, JSON.stringify({gpuThreshold: 80}));
		const fromFile = await loadSettings({config: file}, {});
		expect(clusterGpuThresholds(node('jetson'), fromFile.given).size).toBe(0);

		const fromFlag = await loadSettings({gpuThresholds: 'GPU-efgh-5678=75'}, {});
		expect(clusterGpuThresholds(node('jetson'), fromFlag.given)).toEqual(new Map([['GPU-efgh-5678', 75]]));
	});

	test("the map passes to a node's agent as --gpu-thresholds and reads back the same", () => {
		const thresholds = clusterGpuThresholds(node('desktop'), {gpuThresholds: new Map([[GPU2, 72.5]])});
		const text = formatGpuThresholds(thresholds);
		expect(text).toBe(`GPU-abcd-1234=85,${GPU2}=72.5`);
		expect(settingsFromFlags({gpuThresholds: text}).gpuThresholds).toEqual(thresholds);
	});
});

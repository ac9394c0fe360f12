import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {loadClusterConfig} from '../../src/cluster/cluster-config.js';
import {UsageError} from '../../src/core/errors.js';

// Real YAML files in a temp dir, read by the loader as `--cluster FILE` reads them.

const SEED_SAMPLE = path.join(import.meta.dirname, '..', 'fixtures', 'cluster', 'seed-sample.yaml');

let dir: string;
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-cluster-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

let count = 0;
/** A cluster.yaml with `text` (leading newline dropped, so line numbers read as in the test). */
async function clusterFile(text: string): Promise<string> {
	const file = path.join(dir, `cluster-${++count}.yaml`);
	await writeFile(file, text.replace(/^\n/, ''));
	return file;
}

/** The UsageError message the file gets, with its temp path written as `cluster.yaml`. */
async function failure(text: string): Promise<string> {
	const file = await clusterFile(text);
	const error = await loadClusterConfig(file).then(
		() => null,
		(error: unknown) => error,
	);
	expect(error).toBeInstanceOf(UsageError);
	return (error as UsageError).message.replace(file, 'cluster.yaml');
}

describe("the seed's example", () => {
	test('three nodes with their GPUs, transports, user and CPU-only sizes', async () => {
		const config = await loadClusterConfig(SEED_SAMPLE);
		expect(config.nodes.map(n => n.name)).toEqual(['desktop', 'jetson', 'intel-box']);
		const [desktop, jetson, intel] = config.nodes;
		expect(desktop).toEqual({
			name: 'desktop',
			host: 'localhost',
			transport: 'local',
			user: null,
			gpus: [{uuid: 'GPU-abcd-1234', type: 'rtx-4090', vramMb: 24564, memoryType: 'discrete'}],
			maxAdapters: 3,
			cpuCores: null,
			ramMb: null,
		});
		expect(jetson?.transport).toBe('ssh');
		expect(jetson?.gpus[0]).toEqual({uuid: 'GPU-efgh-5678', type: 'jetson-orin', vramMb: 8192, memoryType: 'unified'});
		expect(intel).toMatchObject({transport: 'ssh', user: 'noah', gpus: [], cpuCores: 16, ramMb: 65536, maxAdapters: 1});
	});

	test('defaults: transport local, memory_type discrete, max_adapters 1, no GPUs', async () => {
		const file = await clusterFile(`
nodes:
  - name: single
    host: localhost
  - name: gpu1
    host: gpu1.cluster
    gpus:
      - uuid: GPU-86fe97db-bf54-a056-4e8d-9b07e1a298e7
        type: titan-x
        vram_mb: 12206
`);
		const config = await loadClusterConfig(file);
		expect(config.nodes[0]).toMatchObject({transport: 'local', maxAdapters: 1, gpus: [], user: null});
		expect(config.nodes[1]?.gpus[0]?.memoryType).toBe('discrete');
	});
});

describe("the seed's validation errors, naming the node and the line", () => {
	test.each([
		['nodes: []\n', 'cluster.yaml line 1: no nodes: a cluster needs at least one node under "nodes:"'],
		['nodes:\n', 'cluster.yaml line 1: no nodes: a cluster needs at least one node under "nodes:"'],
		[
			`
nodes:
  - name: box1
    host: localhost
    max_adapters: 1
  - name: box1
    host: 10.0.0.2
    transport: ssh
    max_adapters: 1
`,
			'cluster.yaml line 5: duplicate node name "box1" (nodes[0] and nodes[1]): node names must be unique',
		],
		[
			`
nodes:
  - name: gpu1
    host: gpu1
  - name: gpu2
    host: gpu2
    transport: ssh
    max_adapters: 0
`,
			'cluster.yaml line 7: node "gpu2": max_adapters must be at least 1 (got 0)',
		],
		[
			`
nodes:
  - name: bad
    host: localhost
    gpus:
      - uuid: GPU-bad
        type: unknown
        vram_mb: 0
`,
			'cluster.yaml line 7: node "bad": GPU "GPU-bad" has zero VRAM (vram_mb must be above 0, got 0)',
		],
		[
			`
nodes:
  - name: dupes
    host: localhost
    gpus:
      - uuid: GPU-same
        type: rtx-4090
        vram_mb: 24000
      - uuid: GPU-same
        type: rtx-4090
        vram_mb: 24000
    max_adapters: 2
`,
			'cluster.yaml line 8: node "dupes": duplicate GPU uuid "GPU-same" (gpus[0] and gpus[1])',
		],
		[
			`
nodes:
  - name: bad-ssh
    host: localhost
    transport: ssh
`,
			'cluster.yaml line 3: node "bad-ssh": transport ssh needs a host other than localhost (got "localhost"); this machine is transport: local',
		],
		[
			`
nodes:
  - name: loopback
    host: 127.0.0.1
    transport: ssh
`,
			'cluster.yaml line 3: node "loopback": transport ssh needs a host other than localhost (got "127.0.0.1"); this machine is transport: local',
		],
	])('%#: %s', async (yaml, message) => {
		expect(await failure(yaml)).toBe(message);
	});

	test('a host or user that ssh would read as an option is refused', async () => {
		expect(await failure('nodes:\n  - name: evil\n    host: -oProxyCommand=sh\n    transport: ssh\n')).toBe(
			'cluster.yaml line 3: node "evil": host "-oProxyCommand=sh" is not a host name or address',
		);
		expect(await failure('nodes:\n  - name: n\n    host: n1\n    transport: ssh\n    user: -lroot\n')).toBe(
			'cluster.yaml line 5: node "n": user "-lroot" is not a user name',
		);
	});
});

describe('keys and types', () => {
	test('an unknown key is named, with the key it is close to and the keys that exist', async () => {
		const message = await failure(`
nodes:
  - name: gpu2
    host: gpu2
    gpus:
      - uuid: GPU-1
        type: a100
        vram: 40960
`);
		expect(message).toBe(
			'cluster.yaml line 7: nodes[0].gpus[0] (node "gpu2"): unknown key "vram" (did you mean "vram_mb"?); known keys: uuid, type, vram_mb, memory_type',
		);
		expect(await failure('nodes:\n  - name: a\n    host: a\n    transprot: ssh\n')).toMatch(
			/^cluster\.yaml line 4: nodes\[0\] \(node "a"\): unknown key "transprot" \(did you mean "transport"\?\)/,
		);
		expect(await failure('node:\n  - name: a\n')).toBe(
			'cluster.yaml line 1: unknown key "node" (did you mean "nodes"?); known keys: nodes',
		);
	});

	test('a wrong type names its path and the node', async () => {
		const message = await failure(`
nodes:
  - name: gpu1
    host: gpu1
  - name: gpu2
    host: gpu2
    gpus:
      - uuid: GPU-2
        type: a100
        vram_mb: 40 GB
`);
		expect(message).toBe(
			'cluster.yaml line 9: nodes[1].gpus[0].vram_mb (node "gpu2") must be a whole number of MB (got "40 GB")',
		);
		expect(await failure('nodes:\n  - name: a\n    host: a\n    transport: SSH\n')).toBe(
			'cluster.yaml line 4: nodes[0].transport (node "a") must be local or ssh (got "SSH")',
		);
		expect(
			await failure(
				'nodes:\n  - name: a\n    host: a\n    gpus:\n      - uuid: GPU-1\n        type: x\n        vram_mb: 1\n        memory_type: shared\n',
			),
		).toBe('cluster.yaml line 8: nodes[0].gpus[0].memory_type (node "a") must be discrete or unified (got "shared")');
		expect(await failure('nodes:\n  - name: a\n    host: a\n    max_adapters: 1.5\n')).toBe(
			'cluster.yaml line 4: nodes[0].max_adapters (node "a") must be a whole number of adapters (got 1.5)',
		);
		expect(await failure('nodes: gpu1, gpu2\n')).toBe(
			'cluster.yaml line 1: nodes must be a list of nodes (got "gpu1, gpu2")',
		);
		expect(await failure('- name: a\n  host: a\n')).toBe(
			'cluster.yaml line 1: the file must be a mapping with a "nodes:" list (got [{"name":"a","host":"a"}])',
		);
	});

	test('a missing key is named at the line of the object that lacks it', async () => {
		expect(await failure('nodes:\n  - name: a\n    host: a\n  - name: b\n')).toBe(
			'cluster.yaml line 4: nodes[1].host (node "b") is missing: it must be a host name or address (a string)',
		);
	});
});

describe('the file itself', () => {
	test('a YAML syntax error gives its line and column and the parser words, not its excerpt', async () => {
		const message = await failure(`
nodes:
  - name: a
    host: a
  - name: b
	host: b
`);
		expect(message).toBe('cluster.yaml line 5, column 1: not valid YAML: Tabs are not allowed as indentation');
	});

	test('a key twice in one mapping is a YAML error, not a silent override', async () => {
		expect(await failure('nodes:\n  - name: a\n    host: a\n    host: b\n')).toBe(
			'cluster.yaml line 4, column 5: not valid YAML: Map keys must be unique',
		);
	});

	test('two documents, an empty file, a missing file', async () => {
		expect(await failure('nodes:\n  - name: a\n    host: a\n---\nnodes: []\n')).toBe(
			'cluster.yaml line 4, column 1: not valid YAML: a second document ("---"): a cluster.yaml is one document',
		);
		expect(await failure('# nothing yet\n')).toBe('cluster.yaml: empty; a cluster.yaml lists its nodes under "nodes:"');
		const missing = path.join(dir, 'no-such-cluster.yaml');
		await expect(loadClusterConfig(missing)).rejects.toThrow(
			new UsageError(`cannot read cluster file ${missing}: ENOENT: no such file or directory`),
		);
	});
});

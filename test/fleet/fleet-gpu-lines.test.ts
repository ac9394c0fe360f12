import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {fakeEnv, killAll, readInvocations} from '../helpers/fake-nvidia-smi/harness.js';
import {runCli, startCli} from '../helpers/run-cli.js';

// The many-node view writes one memory log per node; each node's GPUs judged by their own lines (a cluster.yaml's
// reserve factors) carry those lines in that node's log, and --analyze judges each node's GPU by its own. Two
// `local` nodes here, each a real agent over the fake nvidia-smi replaying the gpustat#5 recording (eight TITAN X,
// GPU 1 at 82.2 %): node-a lists GPU 1 as unified memory (critical at 60 %), node-b as discrete (85 %).

const EIGHT_GPUS = 'issue-titanx-8gpu-noheader-nounits';
const GPU1 = 'GPU-86fe97db-bf54-a056-4e8d-9b07e1a298e7';

let dir: string;
let calls: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-fleet-gpu-lines-'));
	calls = path.join(dir, 'nvidia-smi-calls.jsonl');
});
afterEach(async () => {
	killAll(readInvocations(calls).map(entry => entry.pid));
	await rm(dir, {recursive: true, force: true});
});

const node = (name: string, memoryType: string) => `  - name: ${name}
    host: localhost
    gpus:
      - uuid: ${GPU1}
        type: titan-x
        vram_mb: 12206
        memory_type: ${memoryType}
`;

type Entry = {index: number; threshold?: number};

test("each node's log carries that node's GPU lines, and --analyze judges each node's GPU 1 by its own", async () => {
	const cluster = path.join(dir, 'cluster.yaml');
	await writeFile(cluster, `nodes:\n${node('node-a', 'unified')}${node('node-b', 'discrete')}`);
	const log = path.join(dir, 'mem.jsonl');
	const env = fakeEnv({FAKE_NVSMI_SCENARIO: EIGHT_GPUS, FAKE_NVSMI_LOG: calls});
	const args = ['--headless', '--json', '--cluster', cluster, '--interval', '0.2', '--log-interval', '0.4'];
	const run = startCli([...args, '--log-file', log, '--gpu-process-interval', '0'], {env});
	// Two records from each node with its GPUs in them (the first may come before nvidia-smi's first sample).
	const withGpus = (text: string, host: string) =>
		text.split('\n').filter(l => l.startsWith('{') && l.includes(`"host":"${host}"`) && l.includes(GPU1)).length;
	await run.waitFor(o => withGpus(o.stdout, 'node-a') >= 2 && withGpus(o.stdout, 'node-b') >= 2, 30_000);
	run.child.kill('SIGTERM');
	expect(await run.exited).toBe(0);

	const logs = {a: path.join(dir, 'mem.node-a.jsonl'), b: path.join(dir, 'mem.node-b.jsonl')};
	for (const [file, line] of [
		[logs.a, 60],
		[logs.b, 85],
	] as const) {
		const records = (await readFile(file, 'utf8'))
			.trim()
			.split('\n')
			.map(l => JSON.parse(l) as {gpus: Entry[]});
		const withGpu = records.filter(r => r.gpus.length === 8);
		expect(withGpu.length).toBeGreaterThanOrEqual(2);
		for (const {gpus} of withGpu) {
			expect(gpus[1]?.threshold).toBe(line);
			// The other GPUs are judged by --gpu-threshold (90): no line of their own in the log.
			expect(gpus.filter(g => g.threshold !== undefined).map(g => g.index)).toEqual([1]);
		}
	}

	const {code, stdout} = await runCli(['--analyze', logs.a, logs.b, '--json', '--fail-on-breach']);
	expect(code).toBe(4);
	type Gpu = {threshold: number; threshold_from: string; episodes: unknown[]};
	const hosts = (JSON.parse(stdout) as {hosts: Record<string, {breached: boolean; metrics: Record<string, Gpu>}>})
		.hosts;
	expect(hosts['node-a']?.metrics.gpu1).toMatchObject({threshold: 60, threshold_from: 'log'});
	expect(hosts['node-a']?.metrics.gpu1?.episodes).toHaveLength(1);
	expect(hosts['node-a']?.breached).toBe(true);
	expect(hosts['node-b']?.metrics.gpu1).toMatchObject({threshold: 85, threshold_from: 'log', episodes: []});
	expect(hosts['node-b']?.breached).toBe(false);
}, 60_000);

import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {DemoJob} from '../../src/demo/job.js';
import {fakeEnv} from '../helpers/fake-nvidia-smi/harness.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';
import {startSmallJob} from '../helpers/small-demo-job.js';

// `traintop --headless --json --cluster cluster.yaml` with one local node: a real agent here, the fake nvidia-smi
// replaying a recorded H100 (one GPU, GPU-00000000-…, 81559 MiB), two real demo jobs. The file lists that H100 and a
// GPU the node does not have, a RAM size it does not have, and one adapter slot: each difference is said once, with
// the file's line, and the jobs' one clears when a job ends.

const H100 = 'cap-linux-h100-80gb-hbm3-590.48.01';
const H100_UUID = 'GPU-00000000-0000-0000-0000-000000000000';

let dir = '';
let cluster = '';
let jobs: DemoJob[] = [];
let run: CliRun | null = null;

type DeclaredRecord = {
	event?: string;
	host?: string;
	state?: string;
	kind?: string;
	line?: number;
	level?: string;
	text?: string;
};

const records = (text: string): DeclaredRecord[] =>
	text
		.split('\n')
		.filter(line => line.startsWith('{'))
		.map(line => JSON.parse(line) as DeclaredRecord)
		.filter(record => record.event === 'declared');

beforeAll(async () => {
	dir = mkdtempSync(path.join(tmpdir(), 'traintop-fleet-declared-'));
	cluster = path.join(dir, 'cluster.yaml');
	const lines = [
		'nodes:',
		'  - name: box',
		'    host: localhost',
		'    gpus:',
		`      - {uuid: ${H100_UUID}, type: h100, vram_mb: 81559}`,
		'      - {uuid: GPU-not-on-this-node, type: h100, vram_mb: 81559}',
		'    ram_mb: 1',
		'    max_adapters: 1',
		'',
	];
	writeFileSync(cluster, lines.join('\n'));
	jobs = await Promise.all([startSmallJob(path.join(dir, 'a'), 29_741), startSmallJob(path.join(dir, 'b'), 29_742)]);
}, 60_000);

afterAll(async () => {
	run?.child.kill('SIGKILL');
	await Promise.all(jobs.map(job => job.stop()));
	rmSync(dir, {recursive: true, force: true});
});

describe('traintop --cluster: where a node differs from cluster.yaml', () => {
	it('each difference once when first seen, with its line; the jobs over max_adapters cleared when one ends', async () => {
		// The two demo jobs' ranks name their run dirs under this test's own folder: no other test's job counts.
		const match = `rank\\.py.*${path.basename(dir)}/`;
		const args = ['--headless', '--json', '--cluster', cluster, '--match', match, '--interval', '0.3'];
		run = startCli([...args, '--log-interval', '1', '--no-log'], {env: fakeEnv({FAKE_NVSMI_SCENARIO: H100})});
		const seen = (kind: string) => (o: {stdout: string}) =>
			records(o.stdout).some(r => r.kind === kind && r.state === 'seen');
		for (const kind of ['gpu-missing', 'ram', 'jobs']) await run.waitFor(seen(kind), 20_000);

		const found = records(run.stdout());
		expect(found.map(r => `${r.host} ${r.level} ${r.kind} line ${r.line}`).sort()).toEqual([
			'box warn gpu-missing line 6',
			'box warn jobs line 8',
			'box warn ram line 7',
		]);
		expect(found.find(r => r.kind === 'gpu-missing')?.text).toBe(
			`node box differs from ${cluster} line 6: GPU GPU-not-on-this-node (h100) is listed; its agent does not see it (nvidia-smi there shows 1 GPU, none with that uuid)`,
		);
		expect(found.find(r => r.kind === 'jobs')?.text).toMatch(
			/ line 8: 2 jobs run there \(launcher\.py:\d+, launcher\.py:\d+\), more than max_adapters 1$/,
		);
		expect(run.stderr()).toMatch(/traintop: \S+ \S+ WARN node box differs from .*cluster\.yaml line 6: GPU GPU-not-on/);

		// More snapshots come (a record a second), and nothing is said again.
		const before = run.stdout().length;
		await run.waitFor(
			o =>
				o.stdout
					.slice(before)
					.split('\n')
					.filter(l => l.includes('"timestamp"')).length >= 2,
			20_000,
		);
		expect(records(run.stdout())).toHaveLength(3);
		// The listed H100 is there, at its size: nothing said of it.
		expect(run.stdout()).not.toContain(`GPU ${H100_UUID}`);

		// One job ends: one job on one adapter slot agrees with the file again; the other differences stand.
		await jobs[1]!.stop();
		await run.waitFor(o => records(o.stdout).some(r => r.kind === 'jobs' && r.state === 'cleared'), 20_000);
		const cleared = records(run.stdout()).filter(r => r.state === 'cleared');
		expect(cleared.map(r => `${r.level} ${r.kind}`)).toEqual(['ok jobs']);
		expect(cleared[0]?.text).toMatch(/^node box agrees with .*cluster\.yaml line 8 again \(was: 2 jobs run there/);
		expect(run.stderr()).toMatch(/traintop: \S+ \S+ node box agrees with .*cluster\.yaml line 8 again/);

		run.child.kill('SIGTERM');
		expect(await run.exited).toBe(0);
	}, 90_000);
});

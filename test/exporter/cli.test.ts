import {createServer, type Server} from 'node:net';
import {afterAll, describe, expect, test} from 'vitest';
import {
	fakeEnv,
	isAlive,
	killAll,
	readInvocations,
	removeTempDirs,
	tempDir,
} from '../helpers/fake-nvidia-smi/harness.js';
import {fleetNodesForThisFile} from '../helpers/fleet-nodes.js';
import {runCli, startCli} from '../helpers/run-cli.js';
import {parseExposition, series, valueAt} from './exposition-text.js';
import {ask, scrapeUntil, servedAt} from './http.js';

// The built CLI with --listen: headless over the fake nvidia-smi replaying the recorded H200 (driver 580.159.04,
// test/fixtures/nvidia-smi/csv/h200__health-busy.json), scraped over HTTP while it runs, then stopped by SIGINT.

afterAll(removeTempDirs);
const nodes = fleetNodesForThisFile('traintop-exporter-');

const FAKE = 'test/helpers/fake-nvidia-smi/nvidia-smi';
const QUIET = ['--headless', '--no-log', '--interval', '0.2', '--match', 'no-such-job-[0-9]{40}', '--nvidia-smi', FAKE];

describe('traintop --listen', () => {
	test('serves the GPU figures and the RAM percent of a running headless monitor; stops with it', async () => {
		const calls = `${tempDir()}/calls.jsonl`;
		const run = startCli([...QUIET, '--listen', '127.0.0.1:0'], {
			env: fakeEnv({FAKE_NVSMI_SCENARIO: 'h200-health-busy', FAKE_NVSMI_LOG: calls}),
		});
		try {
			await run.waitFor(out => servedAt(out.stderr) !== null, 20_000);
			const url = servedAt(run.stderr())!;
			const body = await scrapeUntil(url, text => text.includes('traintop_gpu_power_watts{'), 'the H200 series');
			const parsed = parseExposition(body);
			const [gpu] = series(parsed, 'traintop_gpu_memory_total_bytes');
			expect(gpu!.labels).toMatchObject({gpu: '0', uuid: expect.stringMatching(/^GPU-/)});
			// The recorded H200's memory: 143771 MiB.
			expect(gpu!.value).toBe(143_771 * 1024 ** 2);
			expect(valueAt(parsed, 'traintop_gpu_utilization_percent')).toBeGreaterThanOrEqual(0);
			expect(series(parsed, 'traintop_gpu_throttle')).toHaveLength(5);
			const ram = valueAt(parsed, 'traintop_ram_used_percent');
			expect(ram).toBeGreaterThan(0);
			expect(ram).toBeLessThanOrEqual(100);
			expect(valueAt(parsed, 'traintop_gpu_reader_up')).toBe(1);
			expect(series(parsed, 'traintop_build_info')[0]!.labels.version).toMatch(/^\d+\.\d+\.\d+/);
			// Built from the latest snapshot at the scrape: the monitor samples every 0.2 s.
			expect(valueAt(parsed, 'traintop_snapshot_age_seconds')).toBeLessThan(5);
			run.child.kill('SIGINT');
			expect(await run.exited).toBe(0);
			await expect(ask(url)).rejects.toThrow(/ECONNREFUSED/);
		} finally {
			run.child.kill('SIGKILL');
			killAll(
				readInvocations(calls)
					.map(entry => entry.pid)
					.filter(isAlive),
			);
		}
	}, 60_000);

	test('an address in use: exit 2 before anything starts, the message names --listen and the address', async () => {
		const taken: Server = createServer();
		await new Promise<void>(resolve => taken.listen(0, '127.0.0.1', resolve));
		const port = (taken.address() as {port: number}).port;
		try {
			const calls = `${tempDir()}/calls.jsonl`;
			const result = await runCli([...QUIET, '--listen', `127.0.0.1:${port}`], {
				env: fakeEnv({FAKE_NVSMI_SCENARIO: 'h200-health-busy', FAKE_NVSMI_LOG: calls}),
			});
			expect(result.code).toBe(2);
			expect(result.stderr).toBe(
				`traintop: --listen 127.0.0.1:${port}: the address is in use (another program listens there); pick another port, or 0 for a free one\n`,
			);
			expect(result.stdout).toBe('');
			// Nothing was started: no nvidia-smi ran.
			expect(readInvocations(calls)).toEqual([]);
		} finally {
			taken.close();
		}
	}, 30_000);

	test('many nodes: each node-scoped series carries its node; each link is traintop_node_up', async () => {
		// Two real agents on this machine through the test's ssh stand-in (test/helpers/fleet-nodes.ts); a third whose
		// "ssh" fails at once.
		const env = {PATH: nodes.path, FAKE_AGENT_node3: 'exit 255'};
		const args = ['--headless', '--no-log', '--interval', '0.5', '--hosts', 'node1,node2,node3'];
		const run = startCli([...args, '--ssh-command', nodes.ssh, '--nvidia-smi', '/nonexistent', '--listen', '0'], {env});
		try {
			await run.waitFor(out => servedAt(out.stderr) !== null, 20_000);
			const url = servedAt(run.stderr())!;
			expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
			const body = await scrapeUntil(
				url,
				text =>
					['node1', 'node2'].every(
						node => series(parseExposition(text), 'traintop_ram_used_percent', {node}).length === 1,
					),
				'both nodes',
				45_000,
			);
			const parsed = parseExposition(body);
			for (const node of ['node1', 'node2']) {
				const [ram] = series(parsed, 'traintop_ram_used_percent', {node});
				expect(ram!.labels.host).toBeTruthy();
				expect(valueAt(parsed, 'traintop_node_up', {node})).toBe(1);
			}
			expect(valueAt(parsed, 'traintop_node_up', {node: 'node3'})).toBe(0);
			expect(series(parsed, 'traintop_ram_used_percent', {node: 'node3'})).toEqual([]);
			run.child.kill('SIGINT');
			expect(await run.exited).toBe(0);
		} finally {
			run.child.kill('SIGKILL');
		}
	}, 90_000);
});

import {hostname} from 'node:os';
import path from 'node:path';
import {readFileSync} from 'node:fs';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import type {DemoJob} from '../../src/demo/job.js';
import {makeTempDir, removeTempDirs} from '../checkpoints/fixtures.js';
import {topThreeRun} from '../checkpoints/frameworks/lightning-fixture.js';
import {ROOT} from '../helpers/dist.js';
import {runCli, startCli} from '../helpers/run-cli.js';
import {startSmallJob} from '../helpers/small-demo-job.js';

// Every --json but --analyze's (which has its own) says its schema_version, and spells its keys in one style,
// snake_case: `checkpoints`, `ranks`, `signal` (sent and refused) as one object, headless mode as JSON Lines whose
// first line is {"schema_version":1,"event":"start",…}. The built CLI on a real demo job and a Lightning run dir.

const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {version: string}).version;
const NO_GPU = ['--nvidia-smi', '/nonexistent'];

/** Every key, at any depth, with a lower-case letter followed by an upper-case one (camelCase), by its path. */
function camelCaseKeys(value: unknown, at = '$'): string[] {
	if (Array.isArray(value)) return value.flatMap((item, i) => camelCaseKeys(item, `${at}[${i}]`));
	if (typeof value !== 'object' || value === null) return [];
	return Object.entries(value).flatMap(([key, inner]) => [
		...(/[a-z][A-Z]/.test(key) ? [`${at}.${key}`] : []),
		...camelCaseKeys(inner, `${at}.${key}`),
	]);
}

/** One --json object: version first, then snake_case keys only. */
function expectVersionedSnakeCase(body: unknown): void {
	expect(Object.keys(body as object)[0]).toBe('schema_version');
	expect((body as {schema_version: unknown}).schema_version).toBe(1);
	expect(camelCaseKeys(body)).toEqual([]);
}

let runDir = '';
let job: DemoJob;
beforeAll(async () => {
	runDir = makeTempDir('traintop-json-');
	job = await startSmallJob(runDir, 29_881);
}, 30_000);
afterAll(async () => {
	await job?.stop();
	removeTempDirs();
});

describe('--json: schema_version 1 and snake_case keys', () => {
	test('checkpoints: a Lightning run dir (groups, metrics, retention, disk)', async () => {
		const run = makeTempDir('traintop-json-fw-');
		topThreeRun(run, Date.UTC(2026, 10, 20, 9, 0, 0));
		const result = await runCli(['checkpoints', run, '--json']);
		expect(result.code, result.stderr).toBe(0);
		const body = JSON.parse(result.stdout) as {checkpoints: unknown[]};
		expectVersionedSnakeCase(body);
		expect(body.checkpoints.length).toBeGreaterThan(0);
	});

	test("ranks: the demo job's ranks with their signals and SLURM and launcher parts", async () => {
		const result = await runCli(['ranks', '--json', '--pid', String(job.launcherPid), ...NO_GPU]);
		expect(result.code, result.stderr).toBe(0);
		const body = JSON.parse(result.stdout) as {ranks: unknown[]; jobs: unknown[]};
		expectVersionedSnakeCase(body);
		expect(body.ranks).toHaveLength(2);
		expect(body.jobs).toHaveLength(1);
	});

	test('signal: a save sent and waited for, and one refused for want of ranks', async () => {
		const sent = await runCli(
			['signal', 'save', runDir, '--pid', String(job.launcherPid), '--yes', '--wait', '--timeout', '20', '--json'],
			{timeoutMs: 30_000},
		);
		expect(sent.code, sent.stderr).toBe(0);
		const body = JSON.parse(sent.stdout) as {results: unknown[]; checkpoint: {saved: boolean}};
		expectVersionedSnakeCase(body);
		expect(body.checkpoint.saved).toBe(true);
		expect(body.results).toHaveLength(2);

		const refused = await runCli(['signal', 'save', '--match', 'no-such-process-of-this-test', '--yes', '--json']);
		expect(refused.code).toBe(3);
		expect(JSON.parse(refused.stdout)).toEqual({schema_version: 1, signal: 'SIGUSR1', results: []});
	}, 40_000);

	test('headless: a start line with the version, then records (the memory log format) and events', async () => {
		const run = startCli([
			'--headless',
			'--json',
			'--pid',
			String(job.launcherPid),
			'--no-log',
			'--interval',
			'0.2',
			'--log-interval',
			'0.4',
			...NO_GPU,
		]);
		await run.waitFor(o => o.stdout.split('\n').filter(line => line.includes('"timestamp"')).length >= 2);
		run.child.kill('SIGTERM');
		expect(await run.exited).toBe(0);
		const lines = run
			.stdout()
			.trim()
			.split('\n')
			.map(line => JSON.parse(line) as Record<string, unknown>);
		expect(lines[0]).toEqual({
			schema_version: 1,
			event: 'start',
			time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
			version: VERSION,
			host: hostname(),
		});
		// Only the first line: records and events carry no version of their own.
		expect(lines.slice(1).filter(line => 'schema_version' in line)).toEqual([]);
		expect(lines.slice(1).some(line => 'timestamp' in line && !('event' in line))).toBe(true);
		expect(camelCaseKeys(lines)).toEqual([]);
	});
});

import {mkdtemp, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import type {LogRecord} from '../../src/memlog/record.js';
import {createScratchCgroup, type ScratchCgroup, scratchCgroupUnavailable} from '../helpers/cgroup-scratch.js';
import {type PythonChild, startPython} from '../helpers/python-child.js';
import {startCli} from '../helpers/run-cli.js';

// The built binary on a rank that runs in a real memory cgroup with a limit (512 MiB on the "job" cgroup, the rank
// in its "step" child, holding 200 MiB): the RAM line, its threshold and the memory log are against that limit.

const MIB = 1024 ** 2;
const NO_GPU = ['--nvidia-smi', '/nonexistent/nvidia-smi'];
const FAST = ['--interval', '0.2', '--log-interval', '0.4'];
const unavailable = scratchCgroupUnavailable();
if (unavailable) console.warn(`skipping the cgroup tests: ${unavailable}`);

function records(stdout: string): LogRecord[] {
	return stdout
		.split('\n')
		.filter(line => line.startsWith('{') && !line.includes('"event"'))
		.map(line => JSON.parse(line) as LogRecord);
}

describe.skipIf(unavailable !== null)('traintop --headless on a rank under a cgroup memory limit', () => {
	let cgroup: ScratchCgroup;
	let rank: PythonChild;
	let dir: string;
	beforeAll(async () => {
		dir = await mkdtemp(path.join(tmpdir(), 'traintop-cgroup-'));
		cgroup = createScratchCgroup(['step']);
		cgroup.limit(512 * MIB);
		const setup = [cgroup.joinScript('step'), 'held = bytearray(200 * 1024 * 1024)', 'held[::4096] = b"x" * 51200'];
		rank = await startPython(setup.join('\n'), {RANK: '0', WORLD_SIZE: '1'});
	});
	afterAll(async () => {
		rank?.kill();
		await rank?.exited;
		await cgroup?.remove();
		await rm(dir, {recursive: true, force: true});
	});

	test('--json: the record carries the job cgroup, and the RAM threshold is judged against its limit', async () => {
		const logFile = path.join(dir, 'memory.jsonl');
		const args = ['--headless', '--json', ...NO_GPU, ...FAST, '--pid', String(rank.pid), '--log-file', logFile];
		// 30 %: the rank's 200 MiB is about 40 % of its limit, whatever share of the host's RAM it is.
		const run = startCli([...args, '--ram-threshold', '30']);
		await run.waitFor(o => records(o.stdout).some(r => r.memory?.cgroup && r.alerts.length > 0), 20_000);
		run.child.kill('SIGINT');
		expect(await run.exited).toBe(0);
		const record = records(run.stdout()).find(r => r.memory?.cgroup && r.alerts.length > 0)!;
		const memory = record.memory!;
		expect(memory.cgroup).toMatchObject({scope: 'job', version: cgroup.version, path: cgroup.path, limit_gb: 0.5});
		expect(memory.cgroup!.used_gb).toBeGreaterThanOrEqual(200 / 1024);
		expect(memory.cgroup!.used_gb).toBeLessThan(264 / 1024);
		expect(memory.cgroup!.percent).toBeCloseTo((memory.cgroup!.used_gb / 0.5) * 100, 0);
		// The host's fields keep their meaning: the host's total, beside the limit.
		expect(memory.total_gb).toBeGreaterThan(0.5);
		const alert = record.alerts.find(a => a.metric === 'ram')!;
		expect(alert).toMatchObject({to: 'critical', threshold: 30});
		expect(Math.abs(alert.value - memory.cgroup!.percent)).toBeLessThan(2);
		// The log file is written alike.
		const logged = (await readFile(logFile, 'utf8'))
			.trim()
			.split('\n')
			.map(line => JSON.parse(line) as LogRecord);
		expect(logged.some(r => r.memory?.cgroup?.path === cgroup.path)).toBe(true);
	});

	test('the status line says which limit the RAM percent is against, with the host beside it', async () => {
		const run = startCli(['--headless', ...NO_GPU, ...FAST, '--no-log', '--pid', String(rank.pid)]);
		await run.waitFor(o => o.stdout.includes('ram (job cgroup limit 512 MiB)'), 20_000);
		run.child.kill('SIGINT');
		expect(await run.exited).toBe(0);
		const line = run
			.stdout()
			.split('\n')
			.find(l => l.includes('ram (job cgroup limit'))!;
		expect(line).toMatch(
			/ {2}ram \(job cgroup limit 512 MiB\) (3[89]|4\d|50)\.\d% ok {2}host \d+\.\d% of [\d.]+ GiB {2}swap /,
		);
	});
});

import {readFileSync, realpathSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {hostname, tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, test} from 'vitest';
import {type DdpJob, startDdpJob} from '../helpers/ddp-job.js';
import {ROOT} from '../helpers/dist.js';
import {fakeEnv, isAlive, killAll, readInvocations} from '../helpers/fake-nvidia-smi/harness.js';
import {DEFAULT_FIXTURES_ROOT} from '../helpers/fake-nvidia-smi/scenario.mjs';
import {
	type PromSample,
	type PrometheusServer,
	prometheusBinary,
	startPrometheus,
} from '../helpers/prometheus-server.js';
import {type CliRun, runCli, startCli} from '../helpers/run-cli.js';

// The exporter as a cluster uses it: a real Prometheus server (Debian's prometheus 2.42, test/helpers/prometheus-
// server.ts: generated config, 1 s scrapes, honor_labels so that traintop's own `job` label stays `job`) scrapes a
// headless `traintop --listen 127.0.0.1:0` that watches a real DDP job (test/fixtures/jobs/ddp_plain.py: 2 ranks,
// gloo on CPU, under real torchrun) saving checkpoints into its run dir, with the fake nvidia-smi replaying the H200's
// busy recording (driver 580.159.04: test/fixtures/nvidia-smi/csv/h200__health-busy.json). Everything asserted is
// read back through Prometheus's HTTP API and compared with what /proc, /proc/meminfo, the run dir's files and
// `traintop ranks --json` say at the same time.

const binary = prometheusBinary();
const MIB = 1024 * 1024;
/** Generous: the suite runs four files at once on two cores, beside other DDP jobs. */
const LOADED_MS = 120_000;
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {version: string}).version;
const H200 = 'h200__health-busy';

if (binary === null) console.log('skipped: no prometheus binary (Debian: apt-get install prometheus; .ci/run does)');

/** The recorded H200 table: each frame's memory.used (MiB) and temperature, and the GPU's uuid. */
function h200Recording(): {uuid: string; memoryMib: Set<number>; temperatures: Set<number>} {
	const json = JSON.parse(readFileSync(path.join(DEFAULT_FIXTURES_ROOT, `csv/${H200}.json`), 'utf8')) as {
		fields: string[];
		files: Record<string, string>;
	};
	const rows = (json.files['query-gpu.csv'] ?? '')
		.split('\n')
		.filter(line => line.trim() !== '')
		.map(line => line.split(', '));
	const column = (name: string) => rows.map(row => row[json.fields.indexOf(name)] ?? '');
	return {
		uuid: column('uuid')[0] ?? '',
		memoryMib: new Set(column('memory.used').map(Number)),
		temperatures: new Set(column('temperature.gpu').map(Number)),
	};
}

const vmRssBytes = (pid: number): number => {
	const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
	return Number(kb) * 1024;
};

/** RAM used % as the OOM killer sees it (total − available), from /proc/meminfo. */
const meminfoPercent = (): number => {
	const text = readFileSync('/proc/meminfo', 'utf8');
	const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]);
	return ((kb('MemTotal') - kb('MemAvailable')) / kb('MemTotal')) * 100;
};
const memTotalBytes = (): number =>
	Number(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]) * 1024;

/** Every query of docs/grafana-dashboard.json, with its panel's title. */
const dashboardQueries = (): {title: string; expr: string}[] =>
	(
		JSON.parse(readFileSync(path.join(ROOT, 'docs/grafana-dashboard.json'), 'utf8')) as {
			panels: {title: string; targets: {expr: string}[]}[];
		}
	).panels.flatMap(panel => panel.targets.map(target => ({title: panel.title, expr: target.expr})));

/** A value as Grafana puts a variable into a regex matcher: its regex characters escaped, inside a PromQL string. */
const promRegex = (value: string): string => value.replace(/[.*+?^${}()|[\]\\]/g, '\\\\$&');

const one = (vector: PromSample[]): PromSample => {
	expect(vector, JSON.stringify(vector)).toHaveLength(1);
	return vector[0]!;
};

let job: DdpJob | null = null;
let traintop: CliRun | null = null;
let prometheus: PrometheusServer | null = null;
let dir = '';
let nvsmiCalls = '';
afterEach(async () => {
	await prometheus?.close();
	if (traintop && traintop.child.exitCode === null && traintop.child.signalCode === null) {
		traintop.child.kill('SIGINT');
		const timer = setTimeout(() => traintop?.child.kill('SIGKILL'), 10_000);
		await traintop.exited;
		clearTimeout(timer);
	}
	// Any fake nvidia-smi loop left behind (traintop ends its own; this is for a traintop that was SIGKILLed).
	if (nvsmiCalls)
		killAll(
			readInvocations(nvsmiCalls)
				.map(call => call.pid)
				.filter(isAlive),
		);
	await job?.stop();
	if (dir) await rm(dir, {recursive: true, force: true});
}, 90_000);

describe.skipIf(binary === null)('a real Prometheus scrapes traintop --listen beside a real DDP job', () => {
	test("per-rank RSS, RAM % and the last save's age, with host, job, rank and run_dir labels, read through its API", async () => {
		dir = await mkdtemp(path.join(tmpdir(), 'traintop-prom-'));
		// A save every 200 steps of 0.05 s (10 s idle, longer under load): a last save soon, and seconds apart so that
		// the newest file can be compared once traintop and the scrape have surely seen it.
		job = startDdpJob(dir, {saveEvery: 200, stepSeconds: 0.05});
		const pids = await job.ranks();
		nvsmiCalls = path.join(dir, 'nvidia-smi-calls.jsonl');
		traintop = startCli(
			[dir, '--headless', '--pid', String(job.launcherPid), '--listen', '127.0.0.1:0', '--no-log', '--interval', '1'],
			{env: fakeEnv({FAKE_NVSMI_SCENARIO: H200, FAKE_NVSMI_LOG: nvsmiCalls})},
		);
		const listening = /traintop: metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/;
		await traintop.waitFor(out => listening.test(out.stderr), LOADED_MS);
		const port = Number(listening.exec(traintop.stderr())?.[1]);
		prometheus = await startPrometheus({targets: [`127.0.0.1:${port}`]});
		const prom = prometheus;

		// The job as traintop names it, from the one-shot listing (run meanwhile, on the same machine).
		const listed = await runCli(['ranks', '--pid', String(job.launcherPid), '--json'], {timeoutMs: LOADED_MS});
		expect(listed.code, listed.stderr).toBe(0);
		const shown = JSON.parse(listed.stdout) as {
			jobs: {id: string; ranks: number[]}[];
			ranks: {rank: number; pid: number}[];
		};
		expect(shown.jobs).toHaveLength(1);
		const jobId = shown.jobs[0]!.id;
		expect([...shown.jobs[0]!.ranks].sort()).toEqual([...pids].sort());
		const pidOf = new Map(shown.ranks.map(r => [String(r.rank), r.pid]));
		const host = hostname();

		// The target is up and scraped without error.
		const up = await prom.waitFor('up', vector => vector.length === 1 && vector[0]!.value === 1, LOADED_MS);
		expect(up[0]!.metric.instance).toBe(`127.0.0.1:${port}`);
		const targets = await prom.targets();
		expect(targets.map(t => [t.health, t.lastError])).toEqual([['up', '']]);

		// traintop's own version, as a build-info gauge.
		const build = one(await prom.waitFor('traintop_build_info', vector => vector.length > 0, LOADED_MS));
		expect(build.metric.version).toBe(VERSION);
		expect(build.value).toBe(1);

		// Each rank's RSS, labelled with the host, the job id `traintop ranks` gives and the rank, near /proc's.
		const rankRss = `traintop_rank_rss_bytes{host="${host}",job="${jobId}"}`;
		const ranks = await prom.waitFor(rankRss, vector => vector.length === 2, LOADED_MS);
		expect(ranks.map(s => s.metric.rank).sort()).toEqual(['0', '1']);
		for (const sample of ranks) {
			const pid = pidOf.get(sample.metric.rank ?? '')!;
			const [now] = await prom.query(`${rankRss.slice(0, -1)},rank="${sample.metric.rank}"}`);
			const proc = vmRssBytes(pid);
			// The sample is a second or two older than /proc's reading, and the rank's heap moves a little each step.
			expect(now!.value).toBeGreaterThan(Math.min(proc * 0.8, proc - 20 * MIB));
			expect(now!.value).toBeLessThan(Math.max(proc * 1.2, proc + 20 * MIB));
			console.log(
				`rank ${sample.metric.rank}: ${(now!.value / MIB).toFixed(1)} MiB, /proc ${(proc / MIB).toFixed(1)} MiB`,
			);
		}

		// RAM % of the host (total − available) as /proc/meminfo says it between two reads, or, when traintop reports a
		// cgroup limit tighter than the host's RAM, used ÷ that limit.
		const ramQuery = `traintop_ram_used_percent{host="${host}"}`;
		await prom.waitFor(ramQuery, vector => vector.length === 1, LOADED_MS);
		const before = meminfoPercent();
		const ram = one(await prom.query(ramQuery));
		const after = meminfoPercent();
		const limit = (await prom.query(`traintop_ram_limit_bytes{host="${host}"}`))[0]?.value;
		if (limit !== undefined && limit < memTotalBytes() * 0.99) {
			const used = one(await prom.query(`traintop_ram_used_bytes{host="${host}"}`)).value;
			expect(ram.value).toBeCloseTo((used / limit) * 100, 0);
		} else {
			expect(ram.value).toBeGreaterThan(Math.min(before, after) - 5);
			expect(ram.value).toBeLessThan(Math.max(before, after) + 5);
		}
		console.log(`RAM ${ram.value.toFixed(2)} %, /proc/meminfo ${before.toFixed(2)}–${after.toFixed(2)} %`);

		// The last save's age for this run dir: no older than the newest checkpoint file's mtime says (a few seconds'
		// slack: traintop's tick and the scrape), read when no save landed between the reads compared.
		const runDirs = new Set([dir, realpathSync(dir)]);
		const ageQuery = 'traintop_checkpoint_last_save_age_seconds';
		const ofRunDir = (vector: PromSample[]) => vector.filter(s => runDirs.has(s.metric.run_dir ?? ''));
		await prom.waitFor(ageQuery, vector => ofRunDir(vector).length === 1, LOADED_MS);
		let compared = false;
		const giveUp = Date.now() + LOADED_MS;
		while (!compared && Date.now() < giveUp) {
			const saves = job.saves().length;
			const last = job.saves().at(-1);
			// A save a moment old may not be in traintop's last tick or the last scrape yet: compare once the newest
			// file is a few seconds old, and read again when a save lands between the reads.
			if (last === undefined || Date.now() - job.savedAt(last.name) < 6_000) {
				await new Promise(resolve => setTimeout(resolve, 500));
				continue;
			}
			const savedAtMs = job.savedAt(last.name);
			const age = one(ofRunDir(await prom.query(ageQuery)));
			if (job.saves().length !== saves) continue;
			expect(age.metric.host).toBe(host);
			expect(age.metric.job).toBe(jobId);
			const sinceFile = age.time - savedAtMs / 1000;
			expect(age.value).toBeGreaterThanOrEqual(0);
			expect(age.value).toBeLessThan(sinceFile + 5);
			console.log(
				`last save ${last.name}: age ${age.value.toFixed(1)} s, its file's mtime ${sinceFile.toFixed(1)} s ago`,
			);
			compared = true;
		}
		expect(compared, 'a read of the save age with no save landing meanwhile').toBe(true);

		// The GPU the fake nvidia-smi replays: its memory and temperature are values of the recording.
		const recording = h200Recording();
		const gpuMemory = one(
			await prom.waitFor(`traintop_gpu_memory_used_bytes{host="${host}"}`, v => v.length > 0, LOADED_MS),
		);
		expect(gpuMemory.metric).toMatchObject({gpu: '0', uuid: recording.uuid});
		expect(recording.memoryMib.has(gpuMemory.value / MIB)).toBe(true);
		const temperature = one(await prom.query(`traintop_gpu_temperature_celsius{host="${host}"}`));
		expect(recording.temperatures.has(temperature.value)).toBe(true);
		expect(one(await prom.query(`traintop_gpu_reader_up{host="${host}"}`)).value).toBe(1);

		// The Grafana dashboard (docs/grafana-dashboard.json) on this data, its variables set to this host and job as
		// Grafana sends them (a regex): every query finds series, but swap's on a host without swap and the growing ranks
		// (none grows here); the readiness and progress timelines map the verdict to one of their codes.
		const swapless = /^SwapTotal:\s+0 kB/m.test(readFileSync('/proc/meminfo', 'utf8'));
		const mayBeEmpty = (expr: string) =>
			(swapless && /swap/.test(expr)) || expr.includes('traintop_rank_memory_growing');
		for (const {title, expr} of dashboardQueries()) {
			const promql = expr.replaceAll('$host', promRegex(host)).replaceAll('$job', promRegex(jobId));
			const found = await prom.query(promql);
			if (!mayBeEmpty(promql)) expect(found.length, `${title}: ${promql}`).toBeGreaterThan(0);
			if (/traintop_job_(readiness|progress)/.test(promql)) {
				expect(
					found.map(s => s.value).every(code => [1, 2, 3, 4].includes(code)),
					`${title}: ${JSON.stringify(found)}`,
				).toBe(true);
				console.log(`${title}: code ${found.map(s => s.value).join(', ')}`);
			}
		}
	}, 300_000);
});

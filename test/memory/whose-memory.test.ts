import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {pssOf} from '../helpers/forked-children.js';
import {type Hog, type LeakJob, startHog, startLeakJob} from '../helpers/leak-job.js';
import {runCli, startCli} from '../helpers/run-cli.js';

// Whose memory is it, on a real DDP job (test/fixtures/jobs/ddp_leak.py under real torchrun, gloo on CPU): 2 ranks,
// each with 2 DataLoader workers that share its 150 MiB read-only array; rank 1 keeps 2 MiB a step (0.5 s steps).
// Beside it, a stranger's memory hog (python3 as `nobody`). One headless traintop watches the job the whole time, with
// a RAM line so low the host counts as short (so its top consumers are read), and `traintop ranks --json` reads the
// job's memory once, as the test reads every process's smaps_rollup itself (smem's accounting: the sum of `Pss:`).

const MIB = 1024 * 1024;
/** "The leaking rank is named within 2 minutes" of the job running. */
const NAMED_WITHIN_MS = 120_000;

interface JobEventJson {
	readonly event: string;
	readonly time: string;
	readonly job: string | null;
	readonly rank: number | null;
	readonly pid: number | null;
	readonly level: string;
	readonly text: string;
}

const readStatus = (pid: number): string => {
	try {
		return readFileSync(`/proc/${pid}/status`, 'utf8');
	} catch {
		return '';
	}
};

const events = (stdout: string): JobEventJson[] =>
	stdout
		.split('\n')
		.filter(line => line.startsWith('{"event"'))
		.map(line => JSON.parse(line) as JobEventJson);

describe('whose memory it is, on a real DDP job with a leaking rank and workers sharing an array', () => {
	it('PSS within 5 % of smem, the leaking rank named within 2 min and no other, a stranger hog among the top consumers', async context => {
		const job: LeakJob = startLeakJob({nproc: 2, leakRank: 1, leakMib: 2, stepSeconds: 0.5, arrayMib: 150, workers: 2});
		const hog: Hog = startHog(600, 'memory-hog-of-the-test');
		context.onTestFinished(async () => {
			hog.stop();
			await job.stop();
		});
		const ranks = await job.ranks();
		await hog.ready();
		const readyAt = Date.now();
		const run = startCli([
			...['--headless', '--json', '--no-log', '--nvidia-smi', '/nonexistent', '--interval', '1'],
			...['--pid', String(job.launcherPid), '--ram-threshold', '2', '--warn-margin', '1'],
		]);
		context.onTestFinished(() => void run.child.kill('SIGKILL'));

		// The job's memory by PSS, as `traintop ranks` reads it, between two smem-style sums of the same processes.
		const pids = [...ranks.values()].flatMap(r => [r.pid, ...r.workers]);
		const smem = () => pids.reduce((sum, pid) => sum + (pssOf(pid) ?? Number.NaN), 0);
		const before = smem();
		const listed = await runCli(['ranks', '--pid', String(job.launcherPid), '--json'], {timeoutMs: 60_000});
		const after = smem();
		expect(listed.code).toBe(0);
		const memory = (JSON.parse(listed.stdout) as {jobs: {memory: {pss_bytes: number; rss_bytes: number}}[]}).jobs[0]!
			.memory;
		const low = Math.min(before, after) * 0.95;
		const high = Math.max(before, after) * 1.05;
		expect(memory.pss_bytes).toBeGreaterThanOrEqual(low);
		expect(memory.pss_bytes).toBeLessThanOrEqual(high);
		// Summed RSS counts the shared array in each of the three processes of a rank: at least 2 × 150 MiB more.
		expect(memory.rss_bytes - memory.pss_bytes).toBeGreaterThan(2 * 150 * MIB);
		console.log(
			`job PSS ${(memory.pss_bytes / MIB).toFixed(0)} MiB (smem ${(before / MIB).toFixed(0)}–${(after / MIB).toFixed(0)} MiB), ` +
				`RSS ${(memory.rss_bytes / MIB).toFixed(0)} MiB`,
		);

		// Rank 1 named as growing within 2 minutes of the job running. What its RSS did meanwhile, read here every 5 s,
		// and the job's last steps are said if it is not: a failure shows whether the job leaked at all.
		const growing = (e: JobEventJson) => e.event === 'memory-growing';
		const seen: string[] = [];
		const watch = setInterval(() => {
			const rss = /^VmRSS:\s+(\d+) kB/m.exec(readStatus(ranks.get(1)!.pid))?.[1];
			seen.push(
				`${Math.round((Date.now() - readyAt) / 1000)} s ${rss === undefined ? '-' : Math.round(Number(rss) / 1024)} MiB`,
			);
		}, 5000);
		context.onTestFinished(() => clearInterval(watch));
		await run
			.waitFor(() => events(run.stdout()).some(growing), NAMED_WITHIN_MS + 30_000)
			.catch((error: Error) => {
				const steps = job
					.output()
					.split('\n')
					.filter(line => / step \d+ time /.test(line))
					.slice(-4);
				throw new Error(`${error.message}\n--- rank 1's RSS: ${seen.join(', ')}\n--- last steps:\n${steps.join('\n')}`);
			});
		clearInterval(watch);
		const first = events(run.stdout()).find(growing)!;
		expect(first.rank).toBe(1);
		expect(first.pid).toBe(ranks.get(1)!.pid);
		expect(Date.parse(first.time) - readyAt).toBeLessThanOrEqual(NAMED_WITHIN_MS);
		console.log(`named after ${((Date.parse(first.time) - readyAt) / 1000).toFixed(0)} s: ${first.text}`);

		// The stranger's hog among the host's top consumers, with its user and command, and no process of the job there.
		const jobPids = new Set([job.launcherPid, ...pids]);
		const listedHog = () =>
			run
				.stdout()
				.split('\n')
				.filter(line => line.startsWith('{"event":"host_consumers"'))
				.map(line => JSON.parse(line) as {top: {pid: number; user: string; cmd: string; pss_bytes: number | null}[]})
				.find(event => event.top.some(c => c.pid === hog.child.pid));
		await run.waitFor(() => listedHog() !== undefined, 60_000);
		const consumers = listedHog()!.top;
		expect(consumers.find(c => c.pid === hog.child.pid)).toMatchObject({
			user: 'nobody',
			cmd: expect.stringContaining('memory-hog-of-the-test'),
		});
		expect(consumers.find(c => c.pid === hog.child.pid)!.pss_bytes).toBeGreaterThan(290 * MIB);
		for (const c of consumers) expect(jobPids.has(c.pid)).toBe(false);
		// Its line on stderr, with user and command as htop shows them.
		expect(run.stderr()).toMatch(new RegExp(`largest not the job's:.*nobody \\S*python3.*\\(pid ${hog.child.pid}\\)`));

		// Two minutes on, still only rank 1: the healthy rank and the workers were never named.
		await run.waitFor(() => Date.now() - readyAt >= NAMED_WITHIN_MS + 10_000, NAMED_WITHIN_MS + 60_000);
		expect(
			events(run.stdout())
				.filter(growing)
				.map(e => e.rank),
		).toEqual([1]);
	}, 400_000);
});

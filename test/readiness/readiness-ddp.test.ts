import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {describe, expect, it, type TestContext} from 'vitest';
import {type DdpJob, startDdpJob, type DdpOptions} from '../helpers/ddp-job.js';
import {reason, verdictSeen} from '../helpers/readiness-events.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';
import {until} from '../helpers/until.js';

// Preemption readiness on real CPU DDP jobs (test/fixtures/jobs/ddp_plain.py under real torchrun, gloo): the ranks
// handle SIGTERM, and --save-seconds makes each save write its checkpoint over that many seconds, which the job logs.
// traintop judges from what it reads: the ranks' dispositions in /proc, the files' own times, --grace.

function job({onTestFinished}: TestContext, options: Omit<DdpOptions, 'stepSeconds'>): {job: DdpJob; runDir: string} {
	const runDir = mkdtempSync(path.join(tmpdir(), 'traintop-ready-'));
	const started = startDdpJob(runDir, {stepSeconds: 0.05, ...options});
	onTestFinished(async () => {
		// A save of 40 s would hold a graceful stop past the hook's time: the ranks go first, at once.
		for (const pid of await started.ranks().catch(() => []))
			try {
				process.kill(pid, 'SIGKILL');
			} catch {
				// gone
			}
		await started.stop();
		rmSync(runDir, {recursive: true, force: true});
	});
	return {job: started, runDir};
}

/** The job's own line for the save named `name`, once torchrun has copied it out. */
async function loggedSave(ddp: DdpJob, name: string | undefined) {
	const find = () => ddp.saves().find(save => save.name === name);
	await until(find, found => found !== undefined, `the job's line for ${name}`, 30_000, 100);
	return find();
}

function watch({onTestFinished}: TestContext, ddp: DdpJob, runDir: string, grace: number): CliRun {
	const run = startCli([
		runDir,
		...['--headless', '--json', '--no-log', '--nvidia-smi', '/nonexistent', '--interval', '0.5'],
		...['--pid', String(ddp.launcherPid), '--grace', String(grace)],
	]);
	onTestFinished(() => void run.child.kill('SIGKILL'));
	return run;
}

describe('readiness of a real DDP job', () => {
	it.concurrent('saves of ~2 s and --grace 30: ready, with the figures measured', async context => {
		const {job: ddp, runDir} = job(context, {saveEvery: 40, saveSeconds: 2});
		await ddp.ranks();
		const run = watch(context, ddp, runDir, 30);
		const ready = await verdictSeen(run, 'ready', 120_000);
		expect(ready).toMatchObject({signal: 'SIGTERM', lead_s: 30, lead_from: 'grace'});
		expect(reason(ready, 'handlers')).toMatchObject({count: 2});
		// The slowest save traintop read from the files is the job's own measure of it, within a second.
		// The job's line for it comes through torchrun's copy of the rank's log, which may trail the file on a loaded
		// machine: waited for.
		const logged = await loggedSave(ddp, ready.save_s?.slowest);
		expect(Math.abs((ready.save_s?.max ?? 0) - (logged?.writeS ?? 0))).toBeLessThan(1);
		expect(ready.save_s?.max).toBeGreaterThan(1.5);
		console.log(
			`DDP readiness, 2 s saves: ${ready.verdict}; save_s ${JSON.stringify(ready.save_s)}, job's log ${logged?.writeS} s`,
		);
		// The same verdict's line on stderr: a pipe of its own, read in its own time.
		const line =
			/readiness torch\.distributed\.run:\d+: ready — every rank handles SIGTERM \(2\); saves take .*--grace gives 30 s; \d+ s of work since the last save/;
		await run.waitFor(o => line.test(o.stderr), 30_000);
	}, 180_000);

	it.concurrent('saves of ~40 s and --grace 30: at-risk, naming both numbers', async context => {
		const {job: ddp, runDir} = job(context, {saveEvery: 20, saveSeconds: 40});
		await ddp.ranks();
		const run = watch(context, ddp, runDir, 30);
		const atRisk = await verdictSeen(run, 'at-risk', 180_000);
		const over = reason(atRisk, 'save-over-lead');
		expect(over).toMatchObject({limit_s: 30});
		const logged = await loggedSave(ddp, over?.name);
		expect(Math.abs((over?.seconds ?? 0) - (logged?.writeS ?? 0))).toBeLessThan(1);
		expect(over?.text).toMatch(/^the slowest save took 4\d s \(ckpt_step\d+\.pt\), longer than the 30 s it gets$/);
		console.log(`DDP readiness, 40 s saves: ${atRisk.verdict}; ${over?.seconds} s read, ${logged?.writeS} s logged`);
	}, 240_000);

	it.concurrent('a rank started without a SIGTERM handler: not-ready, naming the rank', async context => {
		const {job: ddp, runDir} = job(context, {saveEvery: 40, saveSeconds: 0, noTermHandler: 1});
		const [, rank1] = await ddp.ranks();
		const run = watch(context, ddp, runDir, 30);
		const notReady = await verdictSeen(run, 'not-ready', 120_000);
		const missing = notReady.reasons.filter(r => r.code === 'no-handler');
		// ranks() lists them as they said they were ready: find rank 1 by its number in the verdict.
		expect(missing).toHaveLength(1);
		expect(missing[0]).toMatchObject({rank: 1, signal: 'SIGTERM'});
		expect([rank1, ...(await ddp.ranks())]).toContain(missing[0]?.pid);
		expect(missing[0]?.text).toBe(`rank 1 (pid ${missing[0]?.pid}) has no SIGTERM handler: it dies unsaved`);
	}, 180_000);
});

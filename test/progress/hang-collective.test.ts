import {describe, expect, it} from 'vitest';
import {hangJobFor, isStuck, progressEvents, progressSeen, watchJob} from '../helpers/progress-events.js';

// A hung collective on real CPU DDP jobs (test/fixtures/jobs/ddp_hang.py under real torchrun, gloo): one rank stops
// taking part while its peers block in an all_reduce, and a headless traintop names the one the others wait for from
// what it reads of /proc alone. What the kernel shows of each hang was measured and is written in
// test/helpers/hang-job.ts.

/** traintop's rank scan (--ranks-interval 0.5): a verdict can be up to one scan late. */
const SCAN_MS = 500;
/** Room for a loaded 2-core machine on top of that: scans late, torchrun's copy of the output late. */
const SLACK_MS = 10_000;
const HANG_AFTER_S = 20;

describe('a rank that stops taking part in the collectives', () => {
	it.concurrent('a rank asleep before its all_reduce: hung, naming it, after --hang-after and not before', async context => {
		// Step 200 at 0.1 s steps: some 20 s of training seen before the hang.
		const {job, runDir} = hangJobFor(context, {nproc: 3, hangRank: 1, hangStep: 200, hang: 'sleep'});
		const ranks = await job.ranks();
		const run = watchJob(context, job, runDir, HANG_AFTER_S);
		const start = await job.hangStart(180_000);
		const hung = await progressSeen(
			run,
			e => e.verdict === 'hung' && e.odd_ranks.some(o => o.pid === ranks.get(1)),
			180_000,
		);
		const events = progressEvents(run.stdout());
		const firstStuck = events.find(isStuck);
		// The job was seen training before it hung; the first stalled or hung verdict came a window after the hang
		// began (the rank printed its time.time() as it went to sleep), within one scan and a loaded machine's slack.
		expect(events.slice(0, events.indexOf(firstStuck!)).some(e => e.verdict === 'progressing')).toBe(true);
		const at = Date.parse(firstStuck!.time);
		expect(at).toBeGreaterThanOrEqual(start.at + HANG_AFTER_S * 1000 - SCAN_MS);
		expect(at).toBeLessThanOrEqual(start.at + HANG_AFTER_S * 1000 + SCAN_MS + SLACK_MS);
		expect(hung.odd_ranks[0]).toMatchObject({
			role: 'rank',
			rank: 1,
			pid: ranks.get(1),
			activity: 'sleeping',
			wchan: 'hrtimer_nanosleep',
		});
		expect(hung.odd_ranks).toHaveLength(1);
		expect(hung.waiting).toHaveLength(1);
		expect([...(hung.waiting[0]?.pids ?? [])].sort()).toEqual([ranks.get(0), ranks.get(2)].sort());
		expect(hung.waiting[0]).toMatchObject({activity: 'waiting'});
		expect([...(hung.waiting[0]?.ranks ?? [])].sort()).toEqual([0, 2]);
		console.log(
			`sleeping rank: hang at ${new Date(start.at).toISOString()}, first ${firstStuck?.verdict} at ${firstStuck?.time} ` +
				`(${((at - start.at) / 1000).toFixed(1)} s, --hang-after ${HANG_AFTER_S}); ${hung.text}`,
		);
		// The same verdict's line on stderr, naming the rank by its pid and where it sleeps.
		const line = new RegExp(
			`\\d\\d:\\d\\d:\\d\\d progress torch\\.distributed\\.run:${job.launcherPid}: HUNG.*\\b${ranks.get(1)}\\b.*hrtimer_nanosleep`,
		);
		await run.waitFor(o => line.test(o.stderr), 30_000);
	}, 240_000);

	it.concurrent('a rank SIGSTOPped: named as stopped, its peer as waiting', async context => {
		const {job, runDir} = hangJobFor(context, {nproc: 2});
		const ranks = await job.ranks();
		const run = watchJob(context, job, runDir, HANG_AFTER_S);
		await progressSeen(run, e => e.verdict === 'progressing', 120_000);
		const stopped = ranks.get(1)!;
		context.onTestFinished(() => {
			try {
				process.kill(stopped, 'SIGCONT');
			} catch {
				// gone
			}
		});
		process.kill(stopped, 'SIGSTOP');
		const event = await progressSeen(
			run,
			e =>
				e.odd_ranks.some(o => o.pid === stopped && o.activity === 'stopped') &&
				e.waiting.some(w => w.pids.includes(ranks.get(0)!) && w.activity === 'waiting'),
			120_000,
		);
		expect(event.verdict).toBe('hung');
		expect(event.odd_ranks).toEqual([
			expect.objectContaining({role: 'rank', rank: 1, pid: stopped, activity: 'stopped'}),
		]);
		// The kernel's word for a stopped task, where traintop shows one.
		expect([null, 'do_signal_stop']).toContain(event.odd_ranks[0]?.wchan);
		expect(event.waiting).toEqual([expect.objectContaining({ranks: [0], pids: [ranks.get(0)], activity: 'waiting'})]);
		console.log(`stopped rank: ${event.text}`);
	}, 240_000);

	it.concurrent('a DataLoader worker asleep in __getitem__ while its rank waits for it: the worker is named', async context => {
		const {job, runDir} = hangJobFor(context, {nproc: 2, workers: 2, hangRank: 1, hangStep: 200, hang: 'worker-sleep'});
		const ranks = await job.ranks();
		const workers = await job.workers();
		const run = watchJob(context, job, runDir, HANG_AFTER_S);
		const start = await job.hangStart(180_000);
		const stuckPid = start.workerPid!;
		expect(workers.filter(w => w.rank === 1).map(w => w.pid)).toContain(stuckPid);
		const hung = await progressSeen(
			run,
			e => e.verdict === 'hung' && e.odd_ranks.some(o => o.role === 'worker' && o.pid === stuckPid),
			180_000,
		);
		expect(hung.odd_ranks).toContainEqual(
			expect.objectContaining({
				role: 'worker',
				pid: stuckPid,
				of: ranks.get(1),
				activity: 'sleeping',
				wchan: 'hrtimer_nanosleep',
			}),
		);
		// Its rank stands out too (asleep on the DataLoader's queue, not in the collective); its peer waits.
		expect(hung.odd_ranks).toContainEqual(expect.objectContaining({role: 'rank', rank: 1, pid: ranks.get(1)}));
		expect(hung.waiting).toContainEqual(expect.objectContaining({pids: [ranks.get(0)], activity: 'waiting'}));
		// The idle workers, waiting on their index queues, are not named.
		const named = new Set(hung.odd_ranks.map(o => o.pid));
		for (const idle of workers.filter(w => w.pid !== stuckPid)) expect(named.has(idle.pid)).toBe(false);
		console.log(`stuck worker: ${hung.text}`);
	}, 240_000);
});

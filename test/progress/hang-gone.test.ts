import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {hangJobFor, progressSeen, watchJob} from '../helpers/progress-events.js';
import {until} from '../helpers/until.js';

// A rank killed under real torchrun (test/fixtures/jobs/ddp_hang.py, gloo on CPU) while its peer still waits for it.
// The window is real and about 5 s (measured, see test/helpers/hang-job.ts): the killed rank's fork-started DataLoader
// worker inherited its gloo sockets, so the peer sees no connection close until that worker's watchdog finds its
// parent gone (torch/utils/data/_utils/worker.py, every MP_STATUS_CHECK_INTERVAL = 5.0 s); --monitor_interval 30
// keeps torchrun's agent from reaping the killed rank and tearing the peer down first (torch 1.13 polls its ranks
// only at that interval), so the killed rank is torchrun's zombie throughout.

/** The pid's state letter, or null once it is gone. */
function stateOf(pid: number): string | null {
	try {
		return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.[0] ?? null;
	} catch {
		return null;
	}
}

describe('a rank killed while its peers wait', () => {
	it.concurrent('SIGKILL of a rank: named as gone, its peer still waiting for it', async context => {
		const {job, runDir} = hangJobFor(context, {nproc: 2, workers: 1, monitorInterval: 30});
		const ranks = await job.ranks();
		await job.workers();
		const run = watchJob(context, job, runDir, 20);
		await progressSeen(run, e => e.verdict === 'progressing', 120_000);
		const killed = ranks.get(1)!;
		const peer = ranks.get(0)!;
		// When the peer stops waiting (it exits once gloo sees the connection close), watched every 20 ms.
		let peerEndedAt: number | null = null;
		const watch = setInterval(() => {
			const state = stateOf(peer);
			if (peerEndedAt === null && (state === null || state === 'Z')) peerEndedAt = Date.now();
		}, 20);
		context.onTestFinished(() => clearInterval(watch));
		const killedAt = Date.now();
		process.kill(killed, 'SIGKILL');
		// The first scans after the kill may still count the peer computing (its CPU share is judged over 3 s): the event
		// awaited names the killed rank gone and the peer waiting, as it must while the peer is still there.
		const event = await progressSeen(
			run,
			e =>
				e.odd_ranks.some(o => o.pid === killed && (o.activity === 'gone' || o.activity === 'zombie')) &&
				e.waiting.some(w => w.pids.includes(peer) && w.activity === 'waiting'),
			60_000,
		);
		const odd = event.odd_ranks.find(o => o.pid === killed);
		expect(odd).toMatchObject({role: 'rank', rank: 1, exit: {signal: 'SIGKILL'}});
		expect(event.waiting).toEqual([expect.objectContaining({ranks: [0], pids: [peer], activity: 'waiting'})]);
		expect(odd?.activity).toBe('gone');
		expect(event.verdict).toBe('hung');
		// The peer was still there when traintop named it waiting: it ended only afterwards.
		const ended = await until(
			() => peerEndedAt,
			at => at !== null,
			'the peer ending after the kill',
			60_000,
			100,
		);
		expect(Date.parse(event.time)).toBeLessThan(ended!);
		console.log(
			`killed rank: event ${((Date.parse(event.time) - killedAt) / 1000).toFixed(2)} s after the kill, ` +
				`peer ended ${((ended! - killedAt) / 1000).toFixed(2)} s after it; ${event.text}`,
		);
	}, 240_000);
});

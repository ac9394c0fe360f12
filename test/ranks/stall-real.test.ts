import {hostname} from 'node:os';
import {afterEach, expect, test} from 'vitest';
import type {JobEvent, RankSet} from '../../src/core/types.js';
import {rankEvents} from '../../src/core/job-events.js';
import {RankSampler} from '../../src/ranks/discover.js';
import {procReader} from '../../src/system/procfs.js';
import {startPython, type PythonChild} from '../helpers/python-child.js';

// A real rank that computes in bursts (0.3 s of CPU, then 4 s asleep) sampled every 0.5 s with a 3 s stall window,
// for 25 s: it is stalled once, after its first long sleep, and stays so through the five bursts that follow — a
// burst on one or two samples is not "running again" (that takes CPU progress on 3 samples in a row). Without the
// hysteresis it flapped on every burst. What this adds to the pure tests of that rule (stall.test.ts: "running again
// only after CPU time advanced on 3 samples in a row", "a busy/idle pattern … over two minutes: stalled once, never
// flapping") is the real part: /proc's CPU ticks of a real process through the RankSampler and the job events. It
// ran two minutes (28 bursts) before; the rule is the same on every burst, so five prove it as well.

const children: PythonChild[] = [];
afterEach(() => {
	for (const child of children.splice(0)) child.kill();
});

/** Long enough for five bursts after the stall (at about 3.5 s); the bursts come every 4.3 s. */
const WATCH_MS = 25_000;

const BURSTS = [
	'import threading',
	'def work():',
	'    while True:',
	'        end = time.time() + 0.3',
	'        while time.time() < end: pass',
	'        time.sleep(4)',
	'threading.Thread(target=work, daemon=True).start()',
].join('\n');

test('a busy/idle rank over five bursts: one stalled event, no flapping', async () => {
	const tag = `tt-bursts-${process.pid}-${Date.now()}`;
	const child = await startPython(BURSTS, {RANK: '0', WORLD_SIZE: '1'}, tag);
	children.push(child);
	const sampler = new RankSampler({
		proc: procReader(),
		selector: {kind: 'match', pattern: new RegExp(tag)},
		host: hostname(),
		stallAfterMs: 3000,
	});
	const events: JobEvent[] = [];
	let previous: RankSet | null = null;
	const end = Date.now() + WATCH_MS;
	let samples = 0;
	while (Date.now() < end) {
		const set = await sampler.sample();
		expect(set.ranks.map(r => r.pid)).toEqual([child.pid]);
		events.push(...rankEvents(previous, set, Date.now()));
		previous = set;
		samples++;
		await new Promise(resolve => setTimeout(resolve, 500)); // the sampling period, as the Monitor's clock
	}
	// At least 60 % of the samples the period allows (50), as before (150 of 240): the bursts were seen.
	expect(samples).toBeGreaterThan(30);
	// The rank is its job's only one, so its stall is the job's: one job-stalled, never a job-resumed.
	expect(events.map(e => e.kind)).toEqual(['job-stalled']);
	expect(previous?.ranks[0]?.stalled).toBe(true);
}, 90_000);

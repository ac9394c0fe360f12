import {hostname} from 'node:os';
import {afterEach, expect, test} from 'vitest';
import type {JobEvent, RankSet} from '../../src/core/types.js';
import {rankEvents} from '../../src/core/job-events.js';
import {RankSampler} from '../../src/ranks/discover.js';
import {procReader} from '../../src/system/procfs.js';
import {startPython, type PythonChild} from '../helpers/python-child.js';

// Two minutes of a real rank that computes in bursts (0.3 s of CPU, then 4 s asleep) sampled every 0.5 s with a
// 3 s stall window: it is stalled once, after its first long sleep, and stays so — a burst on one or two samples
// is not "running again" (that takes CPU progress on 3 samples in a row). Without the hysteresis it flapped on
// every burst, about 28 times.

const children: PythonChild[] = [];
afterEach(() => {
	for (const child of children.splice(0)) child.kill();
});

const BURSTS = [
	'import threading',
	'def work():',
	'    while True:',
	'        end = time.time() + 0.3',
	'        while time.time() < end: pass',
	'        time.sleep(4)',
	'threading.Thread(target=work, daemon=True).start()',
].join('\n');

test('a busy/idle rank over two minutes: one stalled event, no flapping', async () => {
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
	const end = Date.now() + 120_000;
	let samples = 0;
	while (Date.now() < end) {
		const set = await sampler.sample();
		expect(set.ranks.map(r => r.pid)).toEqual([child.pid]);
		events.push(...rankEvents(previous, set, Date.now()));
		previous = set;
		samples++;
		await new Promise(resolve => setTimeout(resolve, 500)); // the sampling period, as the Monitor's clock
	}
	expect(samples).toBeGreaterThan(150);
	// The rank is its job's only one, so its stall is the job's: one job-stalled, never a job-resumed.
	expect(events.map(e => e.kind)).toEqual(['job-stalled']);
	expect(previous?.ranks[0]?.stalled).toBe(true);
}, 180_000);

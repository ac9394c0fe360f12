import {describe, expect, test} from 'vitest';
import type {Readiness} from '../../src/core/readiness-types.js';
import type {JobEvent, Snapshot} from '../../src/core/types.js';
import {snapshotSignals, type SourceContext} from '../../src/notify/notice-source.js';
import {DEFAULT_NOTIFY_EVENTS} from '../../src/notify/event-names.js';
import {notifySelection} from '../../src/notify/selection.js';
import {JobLevelEvents} from '../../src/session/job-level.js';
import {scriptedMonitor} from '../helpers/scripted-monitor.js';
import {hostMemory, ScriptedSources} from '../helpers/snapshots.js';

// Signals from real snapshots: a real Monitor (thresholds RAM 90 %, warn 10 points under, hysteresis 2) on scripted
// readings; job events and readiness as the core makes them, put on the Monitor's own snapshots.

function context(names = DEFAULT_NOTIFY_EVENTS, many = false): SourceContext {
	const once = new JobLevelEvents();
	return {node: 'gpu1', many, selection: notifySelection(names), warnMargin: 10, firstOfJob: e => once.first(e)};
}

async function ramSnapshots(...percents: number[]): Promise<Snapshot[]> {
	const sources = new ScriptedSources();
	let now = 1_700_000_000_000;
	const monitor = scriptedMonitor(sources, () => now);
	const out: Snapshot[] = [];
	for (const percent of percents) {
		sources.memory = hostMemory(percent);
		out.push(await monitor.tick());
		now += 1000;
	}
	return out;
}

const event = (kind: JobEvent['kind'], level: JobEvent['level'], more: Partial<JobEvent> = {}): JobEvent => ({
	time: 1_700_000_000_000,
	kind,
	job: 'torchrun:4200',
	rank: null,
	pid: null,
	level,
	text: `${kind} of torchrun:4200`,
	...more,
});

describe('level changes', () => {
	test('crit: ok → CRIT raises with the level object and the alert words; CRIT → warn clears', async () => {
		const [first, second] = await ramSnapshots(95, 80);
		const raise = snapshotSignals(null, first!, context());
		expect(raise).toHaveLength(1);
		expect(raise[0]).toMatchObject({kind: 'raise', key: 'gpu1 level ram', level: 'critical', host: 'gpu1'});
		expect(raise[0]!.words).toBe('CRIT ram at 95.0%: at or above the 90% threshold');
		expect(raise[0]!.record).toMatchObject({event: 'level', host: 'gpu1', metric: 'ram', from: 'ok', to: 'critical'});
		expect(raise[0]!.record).toMatchObject({value: 95, threshold: 90, level: 'critical'});
		const clear = snapshotSignals(first!, second!, context());
		expect(clear).toMatchObject([{kind: 'clear', key: 'gpu1 level ram', level: 'ok', words: 'ram back to 80.0%'}]);
	});

	test('crit: a change to warn is nothing; warn: it raises, and only ok clears', async () => {
		const [up, crit, down, ok] = await ramSnapshots(82, 95, 85, 50);
		expect(snapshotSignals(null, up!, context())).toEqual([]);
		const warn = context(['warn']);
		expect(snapshotSignals(null, up!, warn)).toMatchObject([{kind: 'raise', level: 'warn'}]);
		expect(snapshotSignals(up!, crit!, warn)).toMatchObject([{kind: 'raise', level: 'critical'}]);
		expect(snapshotSignals(crit!, down!, warn)).toMatchObject([{kind: 'raise', level: 'warn'}]);
		expect(snapshotSignals(down!, ok!, warn)).toMatchObject([{kind: 'clear', level: 'ok'}]);
	});
});

describe('job events', () => {
	async function withEvents(...events: JobEvent[]): Promise<Snapshot> {
		const [snapshot] = await ramSnapshots(10);
		return {...snapshot!, events};
	}

	test('a hang raises; progressing again clears the same episode', async () => {
		const hung = snapshotSignals(null, await withEvents(event('job-hung', 'critical')), context());
		expect(hung).toMatchObject([{kind: 'raise', key: 'gpu1 job-hung torchrun:4200', level: 'critical'}]);
		expect(hung[0]!.record).toMatchObject({event: 'job-hung', job: 'torchrun:4200', host: 'gpu1', level: 'critical'});
		expect(hung[0]!.words).toBe('CRIT job-hung of torchrun:4200');
		const again = snapshotSignals(null, await withEvents(event('job-progressing', 'ok')), context());
		expect(again).toMatchObject([{kind: 'clear', key: 'gpu1 job-hung torchrun:4200'}]);
	});

	test('a rank that died is told once per job; a clean exit is not (the job-ended notice tells it)', async () => {
		const died = event('rank-exited', 'critical', {rank: 3, pid: 4242, exit: {code: null, signal: 'SIGKILL'}});
		const clean = event('rank-exited', 'ok', {rank: 2, pid: 4241, exit: {code: 0, signal: null}});
		const signals = snapshotSignals(null, await withEvents(died, clean), context());
		expect(signals).toMatchObject([{kind: 'once', key: 'gpu1 rank-exited torchrun:4200', level: 'critical'}]);
		expect(signals[0]!.record).toMatchObject({rank: 3, pid: 4242, exit: {code: null, signal: 'SIGKILL'}});
		const ended = snapshotSignals(null, await withEvents(event('job-ended', 'ok')), context());
		expect(ended).toMatchObject([{kind: 'once', key: 'gpu1 job-ended torchrun:4200', level: 'ok'}]);
	});

	test('an event of level ok never raises; a kind not selected gives only the clears it is a pair of', async () => {
		const all = context(['all']);
		expect(snapshotSignals(null, await withEvents(event('memory-growing', 'ok', {pid: 7})), all)).toEqual([]);
		const save = await withEvents(event('save-seen', 'ok', {checkpoint: 'checkpoint-500'}));
		expect(snapshotSignals(null, save, context())).toMatchObject([{kind: 'clear', key: 'gpu1 overdue torchrun:4200'}]);
		expect(snapshotSignals(null, save, context(['save-seen']))).toMatchObject([
			{kind: 'clear', key: 'gpu1 overdue torchrun:4200'},
			{kind: 'once', key: 'gpu1 save-seen torchrun:4200'},
		]);
	});

	test('a rank stalled and its resume meet by job and rank; a GPU problem and its end by GPU', async () => {
		const all = context(['all']);
		const stalled = await withEvents(event('rank-stalled', 'warn', {rank: 1, pid: 11}));
		expect(snapshotSignals(null, stalled, all)).toMatchObject([
			{kind: 'raise', key: 'gpu1 rank-stalled torchrun:4200 rank 1'},
		]);
		const resumed = await withEvents(event('rank-resumed', 'ok', {rank: 1, pid: 11}));
		expect(snapshotSignals(null, resumed, all).map(s => `${s.kind} ${s.key}`)).toEqual([
			'clear gpu1 rank-stalled torchrun:4200 rank 1',
			'clear gpu1 rank-stopped torchrun:4200 rank 1',
		]);
		const hot = event('gpu-health', 'warn', {job: null, gpu: 3, text: 'GPU3 throttled: thermal slowdown'});
		const cool = event('gpu-health', 'ok', {job: null, gpu: 3, text: 'GPU3 no longer throttled: thermal slowdown'});
		expect(snapshotSignals(null, await withEvents(hot), all)).toMatchObject([
			{kind: 'raise', key: 'gpu1 gpu-health GPU3'},
		]);
		expect(snapshotSignals(null, await withEvents(cool), all)).toMatchObject([
			{kind: 'clear', key: 'gpu1 gpu-health GPU3'},
		]);
	});

	test("many nodes: a job-level event is the job's (no node in its key) and said once, whichever node says it", async () => {
		const requeued = event('requeued', 'warn', {job: 'slurm:42'});
		const many = context(['requeued'], true);
		const snapshot = await withEvents(requeued);
		expect(snapshotSignals(null, snapshot, many)).toMatchObject([{kind: 'once', key: 'requeued slurm:42'}]);
		expect(snapshotSignals(null, snapshot, {...many, node: 'gpu2'})).toEqual([]);
	});

	test('words from outside traintop are made printable', async () => {
		const odd = event('job-hung', 'critical', {text: 'job \u001b]0;PWNED\u0007 hung'});
		expect(snapshotSignals(null, await withEvents(odd), context())[0]!.words).toBe('CRIT job \\e]0;PWNED\\x07 hung');
	});
});

describe('readiness and jobs gone', () => {
	const readiness = (verdict: Readiness['verdict']): Readiness => ({
		job: 'torchrun:4200',
		verdict,
		signal: 'SIGTERM',
		reasons:
			verdict === 'not-ready' ? [{code: 'no-handler', effect: 'not-ready', signal: 'SIGTERM', rank: 3, pid: 4242}] : [],
		saveS: null,
		leadS: null,
		leadFrom: null,
		lastSaveAt: null,
		maxWorkAtRiskS: null,
	});

	test('turning not-ready raises with the readiness object; anything else after it clears', async () => {
		const [a, b, c] = await ramSnapshots(10, 10, 10);
		const ready = {...a!, readiness: [readiness('ready')]};
		const notReady = {...b!, readiness: [readiness('not-ready')]};
		const unknown = {...c!, readiness: [readiness('unknown')]};
		expect(snapshotSignals(null, ready, context())).toEqual([]);
		const raise = snapshotSignals(ready, notReady, context());
		expect(raise).toMatchObject([{kind: 'raise', key: 'gpu1 not-ready torchrun:4200', level: 'critical'}]);
		expect(raise[0]!.record).toMatchObject({
			event: 'readiness',
			job: 'torchrun:4200',
			host: 'gpu1',
			verdict: 'not-ready',
		});
		expect(raise[0]!.words).toBe(
			'CRIT readiness torchrun:4200: not-ready — rank 3 (pid 4242) has no SIGTERM handler: it dies unsaved',
		);
		expect(snapshotSignals(notReady, notReady, context())).toEqual([]);
		expect(snapshotSignals(notReady, unknown, context())).toMatchObject([{kind: 'clear', level: 'ok'}]);
		expect(snapshotSignals(notReady, {...unknown, readiness: []}, context())).toMatchObject([
			{kind: 'clear', record: null, words: 'job torchrun:4200 is gone'},
		]);
	});
});

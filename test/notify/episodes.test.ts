import {describe, expect, test} from 'vitest';
import {LevelTracker, type ThresholdRule} from '../../src/core/thresholds.js';
import type {Snapshot} from '../../src/core/types.js';
import type {Notice} from '../../src/notify/notice.js';
import {Episodes, MAX_EPISODES} from '../../src/notify/episodes.js';
import {DEFAULT_NOTIFY_EVENTS} from '../../src/notify/event-names.js';
import {snapshotSignals} from '../../src/notify/notice-source.js';
import {notifySelection} from '../../src/notify/selection.js';
import type {NoticeSignal} from '../../src/notify/signal.js';
import {scriptedMonitor} from '../helpers/scripted-monitor.js';
import {ScriptedSources} from '../helpers/snapshots.js';

// Episodes over a real LevelTracker (core/thresholds.ts): the level changes it gives for a value series, as the
// notice source makes them signals, fed on a clock the test moves one second a sample.

const RULE: ThresholdRule = {critical: 90, warnMargin: 10, hysteresis: 2};
const T0 = 1_700_000_000_000;

async function baseSnapshot(): Promise<Snapshot> {
	return scriptedMonitor(new ScriptedSources(), () => T0).tick();
}

/** Feeds RAM `values`, one a second, through a LevelTracker and the episodes; returns every notice. */
async function run(values: readonly number[], cooldownS: number, names = DEFAULT_NOTIFY_EVENTS): Promise<Notice[]> {
	const base = await baseSnapshot();
	const tracker = new LevelTracker();
	const episodes = new Episodes(cooldownS);
	const context = {
		node: 'gpu1',
		many: false,
		selection: notifySelection(names),
		warnMargin: 10,
		firstOfJob: () => true,
	};
	const notices: Notice[] = [];
	values.forEach((value, i) => {
		const time = T0 + i * 1000;
		const alert = tracker.update('ram', value, RULE, time);
		const snapshot = {...base, time, newAlerts: alert ? [alert] : []};
		for (const signal of snapshotSignals(null, snapshot, context)) notices.push(...episodes.feed(signal, time));
		notices.push(...episodes.tick(time));
	});
	return notices;
}

const repeat = (values: readonly number[], times: number): number[] => Array.from({length: times}, () => values).flat();

describe('a flapping metric is one episode: one raised, one resolved', () => {
	test('oscillating inside the hysteresis (90.5 / 88.5 against 90, 2 points)', async () => {
		const notices = await run([...repeat([90.5, 88.5], 30), ...repeat([50], 12)], 10);
		expect(notices.map(n => n.state)).toEqual(['raised', 'resolved']);
		expect(notices[1]).toMatchObject({level: 'ok', repeats: 0, since: T0});
	});

	test('oscillating across the line, a cool-down of 10 s: the returns are folded and counted', async () => {
		const notices = await run([...repeat([95, 80], 30), ...repeat([50], 12)], 10);
		expect(notices.map(n => n.state)).toEqual(['raised', 'resolved']);
		const [raised, resolved] = notices;
		expect(raised!.text).toBe('gpu1: CRIT ram at 95.0%: at or above the 90% threshold');
		expect(resolved!.repeats).toBe(29);
		expect(resolved!.text).toMatch(
			/^gpu1: resolved: ram back to 80\.0% \(CRIT since \d\d:\d\d:\d\d, 29 returns inside the cool-down\)$/,
		);
		// The resolve comes a full cool-down after the last clear (sample 59), not before.
		expect(resolved!.time).toBe(T0 + 59_000);
	});

	test('cool-down 0: each clear resolves at once (what the user asked for)', async () => {
		const notices = await run([95, 80, 95, 80], 0);
		expect(notices.map(n => n.state)).toEqual(['raised', 'resolved', 'raised', 'resolved']);
	});

	test('warn: a climb to CRIT inside the episode is said once ("now CRIT"); the fall back and a new climb are not', async () => {
		const notices = await run([82, 95, 85, 95, 85, 95, ...repeat([50], 12)], 10, ['warn']);
		expect(notices.map(n => `${n.state} ${n.level}`)).toEqual(['raised warn', 'raised critical', 'resolved ok']);
		expect(notices[1]!.text).toMatch(
			/^gpu1: now CRIT ram at 95\.0%: at or above the 90% threshold \(WARN since [\d:]+\)$/,
		);
		expect(notices[2]!.text).toMatch(/\(CRIT since /);
	});
});

function signal(kind: NoticeSignal['kind'], key: string, more: Partial<NoticeSignal> = {}): NoticeSignal {
	return {
		kind,
		key,
		level: 'critical',
		time: T0,
		host: 'gpu1',
		job: 'torchrun:4200',
		record: {event: 'rank-exited'},
		words: 'CRIT rank 3 (pid 4242) of torchrun:4200 died of SIGKILL',
		...more,
	};
}

describe('once-kinds, jobs gone and the bound', () => {
	test('eight ranks that die together are one notice; the same again after the cool-down is a new one', () => {
		const episodes = new Episodes(60);
		const first = Array.from({length: 8}, (_, i) => episodes.feed(signal('once', 'gpu1 rank-exited j'), T0 + i)).flat();
		expect(first.map(n => n.state)).toEqual(['once']);
		expect(first[0]!.text).toBe('gpu1: CRIT rank 3 (pid 4242) of torchrun:4200 died of SIGKILL');
		expect(episodes.tick(T0 + 59_000)).toEqual([]);
		expect(episodes.tick(T0 + 60_000)).toEqual([]);
		expect(episodes.size).toBe(0);
		expect(episodes.feed(signal('once', 'gpu1 rank-exited j'), T0 + 61_000).map(n => n.state)).toEqual(['once']);
	});

	test("a job gone ends its node's open episodes of it, with the raise's record; others stay", () => {
		const episodes = new Episodes(5);
		episodes.feed(signal('raise', 'gpu1 job-hung j', {record: {event: 'job-hung'}}), T0);
		episodes.feed(signal('raise', 'gpu2 job-hung j', {host: 'gpu2'}), T0);
		episodes.feed(signal('raise', 'gpu1 job-hung k', {job: 'other'}), T0);
		const gone = signal('job-gone', '', {
			level: 'ok',
			record: null,
			words: 'job torchrun:4200 is gone',
			time: T0 + 1000,
		});
		expect(episodes.feed(gone, T0 + 1000)).toEqual([]);
		const resolved = episodes.tick(T0 + 6000);
		expect(resolved).toHaveLength(1);
		expect(resolved[0]).toMatchObject({state: 'resolved', episode: 'gpu1 job-hung j', record: {event: 'job-hung'}});
		expect(resolved[0]!.text).toMatch(/^gpu1: resolved: job torchrun:4200 is gone \(CRIT since /);
		expect(episodes.size).toBe(2);
	});

	test('a clear of an episode never opened is nothing; the episodes held stay bounded', () => {
		const episodes = new Episodes(5);
		expect(episodes.feed(signal('clear', 'gpu1 overdue j', {level: 'ok'}), T0)).toEqual([]);
		for (let i = 0; i < MAX_EPISODES + 100; i++) episodes.feed(signal('raise', `node${i} level ram`), T0);
		expect(episodes.size).toBe(MAX_EPISODES);
	});
});

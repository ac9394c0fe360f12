import {PassThrough} from 'node:stream';
import {afterEach, describe, expect, test} from 'vitest';
import {DEFAULT_SETTINGS, type Settings} from '../../src/config/schema.js';
import type {SinkFactories} from '../../src/notify/build-sinks.js';
import type {Notice, NoticeSink} from '../../src/notify/notice.js';
import {Notifier} from '../../src/notify/notifier.js';
import {openNotifier} from '../../src/notify/open-notifier.js';
import {hostMemory, ScriptedSources} from '../helpers/snapshots.js';
import {closeSessions, testSession} from '../helpers/session.js';
import {until} from '../helpers/until.js';
import {CollectingSink} from './collecting-sink.js';

// The notifier on a real session (session/session.ts: the Monitor sampling every 0.2 s, the rank sampler, the
// recorder) whose memory reader the test sets: RAM turns CRIT, then falls, and the sinks get the episode.

afterEach(closeSessions);

const NO_RANKS = {kind: 'match', pattern: /traintop-notifier-test-no-such-process/} as const;

async function session(settings: Partial<Settings> = {}) {
	const sources = new ScriptedSources();
	const opened = await testSession({selector: NO_RANKS, sources, settings: {notifyCooldown: 0.6, ...settings}});
	return {sources, session: opened};
}

describe('Notifier', () => {
	test('RAM at CRIT then back: one raised, one resolved after the cool-down, to every sink', async () => {
		const {sources, session: s} = await session();
		const a = new CollectingSink('a');
		const b = new CollectingSink('b');
		const notifier = new Notifier(s, {settings: s.settings, sinks: [a, b], trouble: () => undefined});
		sources.memory = hostMemory(95);
		await until(
			() => a.states(),
			states => states.length === 1,
			'the raise',
		);
		sources.memory = hostMemory(10);
		await until(
			() => a.states(),
			states => states.length === 2,
			'the resolve',
		);
		expect(a.states()).toEqual(['raised node-7 level ram', 'resolved node-7 level ram']);
		const [raised, resolved] = a.notices as [Notice, Notice];
		expect(raised).toMatchObject({
			level: 'critical',
			host: 'node-7',
			job: null,
			record: {event: 'level', to: 'critical'},
		});
		expect(raised.text).toBe('node-7: CRIT ram at 95.0%: at or above the 85% threshold');
		expect(resolved).toMatchObject({level: 'ok', since: raised.time, record: {event: 'level', from: 'critical'}});
		expect(resolved.text).toMatch(/^node-7: resolved: ram back to 10\.0% \(CRIT since [\d:]+\)$/);
		// The resolve waited out the cool-down (0.6 s) after the clear it names.
		expect(a.arrived[1]! - resolved.time).toBeGreaterThanOrEqual(600);
		expect(b.states()).toEqual(a.states());
		await notifier.close();
		expect([a.closed, b.closed]).toEqual([true, true]);
		// Closed: the session goes on, the sinks hear nothing more.
		sources.memory = hostMemory(95);
		const tick = s.monitor.getSnapshot()?.tick ?? 0;
		await until(
			() => s.monitor.getSnapshot()?.tick ?? 0,
			now => now > tick + 2,
			'more samples',
		);
		expect(a.notices).toHaveLength(2);
	});

	test('a sink that throws is reported once; the others and the session go on', async () => {
		const {sources, session: s} = await session({notifyCooldown: 0});
		const broken: NoticeSink = {
			name: 'broken',
			send: () => {
				throw new Error('disk full');
			},
			close: async () => undefined,
		};
		const good = new CollectingSink();
		const trouble: string[] = [];
		const notifier = new Notifier(s, {
			settings: s.settings,
			sinks: [broken, good],
			trouble: (sink, message) => trouble.push(`${sink}: ${message}`),
		});
		for (const percent of [95, 10, 95, 10]) {
			const before = good.notices.length;
			sources.memory = hostMemory(percent);
			await until(
				() => good.notices.length,
				n => n > before,
				`the notice at ${percent}%`,
			);
		}
		expect(good.notices.map(n => n.state)).toEqual(['raised', 'resolved', 'raised', 'resolved']);
		expect(trouble).toEqual(['broken: its send failed: disk full']);
		await notifier.close();
	});
});

describe('openNotifier', () => {
	function factories(made: CollectingSink[], options: {timeoutS?: number}[] = []): SinkFactories {
		const sink = (name: string) => {
			const made_ = new CollectingSink(name);
			made.push(made_);
			return made_;
		};
		return {
			command: (_command, o) => {
				options.push(o);
				o.trouble('command', 'exited 127: notify-send: not found');
				return sink('command');
			},
			webhook: (_url, o) => {
				options.push(o);
				return sink('webhook');
			},
			bell: () => sink('bell'),
		};
	}

	const text = (stream: PassThrough) => String(stream.read() ?? '');

	test('headless: the command and the webhook, not the bell; trouble on stderr at once', async () => {
		const {session: s} = await session();
		const made: CollectingSink[] = [];
		const options: {timeoutS?: number}[] = [];
		const stderr = new PassThrough();
		const settings = {
			...s.settings,
			notifyCommand: 'cat',
			webhook: 'http://127.0.0.1:9/hook',
			bell: true,
			notifyTimeout: 3,
		};
		const notices = openNotifier(s, settings, {
			tui: false,
			stdout: new PassThrough(),
			stderr,
			factories: factories(made, options),
		});
		expect(made.map(sink => sink.name)).toEqual(['command', 'webhook']);
		expect(options.map(o => o.timeoutS)).toEqual([3, 3]);
		expect(text(stderr)).toBe(
			'traintop: notices (crit, rank-exited, job-stalled, job-hung, not-ready, overdue, job-ended; resolved after 0.6 s clear) to command `cat`, webhook http://127.0.0.1:9/…\n' +
				'traintop: command: exited 127: notify-send: not found\n',
		);
		await notices.close();
		expect(made.every(sink => sink.closed)).toBe(true);
	});

	test('the TUI: the bell too; trouble kept until the screen is given back (close)', async () => {
		const {session: s} = await session();
		const made: CollectingSink[] = [];
		const stderr = new PassThrough();
		const settings = {...s.settings, notifyCommand: 'cat', bell: true};
		const notices = openNotifier(s, settings, {
			tui: true,
			stdout: new PassThrough(),
			stderr,
			factories: factories(made),
		});
		expect(made.map(sink => sink.name)).toEqual(['command', 'bell']);
		expect(text(stderr)).toBe('');
		await notices.close();
		expect(text(stderr)).toBe('traintop: command: exited 127: notify-send: not found\n');
	});

	test('nothing asked (the bell headless is not): no sink is made', async () => {
		const {session: s} = await session();
		const made: CollectingSink[] = [];
		const io = {stdout: new PassThrough(), stderr: new PassThrough()};
		await openNotifier(s, {...DEFAULT_SETTINGS, bell: true}, {tui: false, ...io, factories: factories(made)}).close();
		expect(made).toEqual([]);
	});
});

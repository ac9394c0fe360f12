import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, test} from 'vitest';
import {Notifier} from '../../src/notify/notifier.js';
import {type RankLauncher, startRankLauncher} from '../helpers/rank-launcher.js';
import {closeSessions, testSession} from '../helpers/session.js';
import {until} from '../helpers/until.js';
import {CollectingSink} from './collecting-sink.js';

// A real job's life through the notifier: three ranks under one launcher (python3 sleepers with SIGTERM's default
// action: not ready for a preemption), all killed at once. The default events give the readiness episode, one
// rank-exited notice for the three deaths, the job's end, and the readiness episode resolved once the job is gone.

let launcher: RankLauncher | null = null;
let dir = '';
afterEach(async () => {
	await closeSessions();
	await launcher?.stop();
	launcher = null;
	if (dir) rmSync(dir, {recursive: true, force: true});
});

test('three ranks killed together: one rank-exited notice, the job-ended notice, not-ready raised and resolved', async () => {
	const tag = `tt-notify-${process.pid}-${Date.now()}`;
	const port = String(21_000 + (process.pid % 20_000));
	const job = `rdzv:127.0.0.1:${port}`;
	dir = mkdtempSync(path.join(tmpdir(), 'traintop-notify-'));
	launcher = startRankLauncher(dir, {exitWhenIdle: true});
	const env = {PATH: process.env.PATH ?? '/usr/bin:/bin', MASTER_ADDR: '127.0.0.1', MASTER_PORT: port, WORLD_SIZE: '3'};
	const sleeper = ['python3', '-c', 'import time; time.sleep(600)', tag];
	const ranks = [];
	for (const rank of ['0', '1', '2']) ranks.push(await launcher.launch(sleeper, {...env, RANK: rank}));

	const session = await testSession({
		selector: {kind: 'match', pattern: new RegExp(tag)},
		// A cool-down wide enough that the three deaths, seen at one rank scan or the next on a loaded machine, fold.
		settings: {notifyCooldown: 3, stallAfter: 3600},
	});
	const sink = new CollectingSink();
	const notifier = new Notifier(session, {settings: session.settings, sinks: [sink], trouble: () => undefined});
	await until(
		() => sink.states(),
		states => states.includes(`raised node-7 not-ready ${job}`),
		'not-ready',
		30_000,
	);
	for (const rank of ranks) rank.kill('SIGKILL');
	await until(
		() => sink.states(),
		states => states.includes(`resolved node-7 not-ready ${job}`),
		'the resolve',
		30_000,
	);
	expect(sink.states()).toEqual([
		`raised node-7 not-ready ${job}`,
		`once node-7 rank-exited ${job}`,
		`once node-7 job-ended ${job}`,
		`resolved node-7 not-ready ${job}`,
	]);
	const [raised, exited, ended, resolved] = sink.notices;
	expect(raised!.level).toBe('critical');
	expect(raised!.text).toMatch(new RegExp(`^node-7: CRIT readiness ${job}: not-ready — `));
	expect(exited!.record).toMatchObject({event: 'rank-exited', job, host: 'node-7'});
	expect(exited!.text).toMatch(
		new RegExp(`^node-7: (CRIT|WARN) rank \\d \\(pid \\d+\\) of ${job} (was killed by SIGKILL|is gone)`),
	);
	expect(ended!.record).toMatchObject({event: 'job-ended', job});
	expect(resolved).toMatchObject({level: 'ok', since: raised!.time, job});
	expect(resolved!.text).toMatch(new RegExp(`^node-7: resolved: job ${job} is gone \\(CRIT since `));
	await notifier.close();
});

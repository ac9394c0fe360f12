import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, test} from 'vitest';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {Notifier} from '../../src/notify/notifier.js';
import {openSession} from '../../src/session/session.js';
import {agentEvent, scriptedAgent} from '../helpers/scripted-agent.js';
import {until} from '../helpers/until.js';
import {snapshotOf} from '../ui/fleet/fleet-fixtures.js';
import {CollectingSink} from './collecting-sink.js';

// The notifier over many nodes: real agent links (child processes speaking the agent protocol), the real Fleet and
// session. Each node's agent reports the same scheduler job's requeue and a rank of its own that exited, then falls
// silent (its link goes stale). The requeue is the job's: one notice, whichever node said it; each rank's exit and
// each stale link is its node's.

let dir = '';
afterEach(() => {
	if (dir) rmSync(dir, {recursive: true, force: true});
	dir = '';
});

/** An agent that says hello and one snapshot, then stays silent until its stdin closes. */
function agent(host: string, now: number) {
	const snapshot = snapshotOf(host, now, {
		events: [
			agentEvent('requeued', 'slurm:16', 'job slurm:16 requeued (restart 1)', now),
			agentEvent('rank-exited', 'slurm:16.0', `rank 0 on ${host} exited`, now),
		],
	});
	return scriptedAgent(dir, host, snapshot, 300);
}

test('many nodes: a job-level event once, a rank exit and a stale link per node', async () => {
	dir = mkdtempSync(path.join(tmpdir(), 'traintop-notify-fleet-'));
	const now = Date.now();
	const session = await openSession({
		settings: {...DEFAULT_SETTINGS, interval: 0.3, logInterval: 3600, log: false},
		runDir: null,
		connections: [agent('a', now), agent('b', now)],
	});
	const sink = new CollectingSink();
	const settings = {...session.settings, notifyEvents: ['requeued', 'rank-exited', 'node-link'] as const};
	const notifier = new Notifier(session, {settings, sinks: [sink], trouble: () => undefined});
	session.start();
	try {
		await until(
			() => sink.states(),
			states => states.filter(s => s.endsWith('node-link')).length === 2,
			'stale links',
			30_000,
		);
	} finally {
		await notifier.close();
		await session.close();
	}
	expect(sink.states().sort()).toEqual([
		'once a rank-exited slurm:16.0',
		'once b rank-exited slurm:16.0',
		'once requeued slurm:16',
		'raised a node-link',
		'raised b node-link',
	]);
	const link = sink.notices.find(n => n.episode === 'a node-link')!;
	expect(link).toMatchObject({level: 'warn', host: 'a', record: {event: 'node', host: 'a', state: 'stale'}});
	expect(link.text).toMatch(/^a: WARN node a /);
	const exited = sink.notices.find(n => n.episode === 'b rank-exited slurm:16.0')!;
	expect(exited.text).toBe('b: WARN rank 0 on b exited');
	expect(exited.record).toMatchObject({event: 'rank-exited', host: 'b', job: 'slurm:16.0'});
}, 60_000);

import {DEFAULT_SETTINGS, type Settings} from '../../src/config/schema.js';
import type {RankSelector} from '../../src/ranks/tree.js';
import {type LocalSession as Session, openSession} from '../../src/session/session.js';
import {ScriptedSources} from './snapshots.js';

// A real session (session/session.ts: the Monitor, the rank sampler, the run-dir watcher, the
// recorder, the actions) with scripted memory and GPU readers, sampling fast. Each test closes
// what it opened with closeSessions().

const open: Session[] = [];

export interface TestSessionOptions {
	readonly settings?: Partial<Settings>;
	readonly runDir?: string | null;
	readonly selector: RankSelector;
	readonly sources?: ScriptedSources;
}

export async function testSession(options: TestSessionOptions): Promise<Session> {
	const sources = options.sources ?? new ScriptedSources();
	const session = await openSession({
		settings: {...DEFAULT_SETTINGS, interval: 0.2, ranksInterval: 0.2, log: false, ...options.settings},
		runDir: options.runDir ?? null,
		selector: options.selector,
		host: 'node-7',
		sources: {readMemory: () => sources.readMemory(), gpu: sources.gpu},
	});
	open.push(session);
	session.start();
	return session;
}

export async function closeSessions(): Promise<void> {
	await Promise.all(open.splice(0).map(session => session.close()));
}

import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import type {Snapshot} from '../../src/core/types.js';
import {localConnection} from '../../src/fleet/transports.js';
import {openSession, type Session} from '../../src/session/session.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {ScriptedSources} from '../helpers/snapshots.js';
import {until} from '../helpers/until.js';

// One session for one node and many: this machine's sampler or a real agent (the built binary, as a `local` node of
// --hosts runs it), each a source of named snapshots with its own memory log, opened, started and closed the same way.

const settings = {...DEFAULT_SETTINGS, interval: 0.2, ranksInterval: 0.2, logInterval: 0.4};
let dir = '';
let session: Session | null = null;

afterEach(async () => {
	await session?.close();
	session = null;
	if (dir) rmSync(dir, {recursive: true, force: true});
	dir = '';
});

/** The first `count` snapshots the session gives, with the node each came from. */
async function snapshotsOf(open: Session, count: number): Promise<[string, Snapshot][]> {
	const seen: [string, Snapshot][] = [];
	const off = open.onSnapshot((node, snapshot) => seen.push([node, snapshot]));
	open.start();
	await until(
		() => seen.length,
		n => n >= count,
		`${count} snapshots`,
		30_000,
	);
	off();
	return seen;
}

describe('openSession', () => {
	it('one local node: its host names its snapshots, and its one log is the recorder the TUI reads', async () => {
		dir = mkdtempSync(path.join(tmpdir(), 'traintop-session-'));
		const sources = new ScriptedSources();
		const local = await openSession({
			settings: {...settings, logFile: path.join(dir, 'mem.jsonl')},
			runDir: null,
			selector: {kind: 'pid', pid: process.pid},
			host: 'node-7',
			sources: {readMemory: () => sources.readMemory(), gpu: sources.gpu},
		});
		session = local;
		expect(local.kind).toBe('local');
		expect([...local.recorders.keys()]).toEqual(['node-7']);
		expect(local.recorders.get('node-7')).toBe(local.recorder);
		const seen = await snapshotsOf(local, 2);
		expect(seen.map(([node]) => node)).toEqual(['node-7', 'node-7']);
		expect(seen[1]![1]).toBe(local.monitor.getSnapshot());
	});

	it("an agent's node: its snapshots come named after the node, into that node's own log", async () => {
		requireBuild();
		dir = mkdtempSync(path.join(tmpdir(), 'traintop-session-'));
		const agent = ['--interval', '0.2', '--nvidia-smi', '/nonexistent', '--pid', String(process.pid)];
		const agents = await openSession({
			settings: {...settings, logFile: path.join(dir, 'mem.jsonl')},
			runDir: null,
			connections: [localConnection('box', [process.execPath, CLI], {args: agent})],
		});
		session = agents;
		expect(agents.kind).toBe('agents');
		expect(agents.logPattern).toBe(path.join(dir, 'mem.<host>.jsonl'));
		expect(agents.recorders.get('box')?.path).toBe(path.join(dir, 'mem.box.jsonl'));
		const seen = await snapshotsOf(agents, 2);
		expect(seen.map(([node]) => node)).toEqual(['box', 'box']);
		expect(agents.fleet.node('box')?.state).toBe('connected');
	}, 60_000);
});

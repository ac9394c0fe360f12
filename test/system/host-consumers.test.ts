// The host's top consumers that are not the job, read for real: a memory hog started by the test as another user
// (`nobody`, as test/ranks/send.test.ts runs a process as another user; root only) holding 400 MiB, a rank of a job
// holding more, and the built CLI with a RAM threshold low enough that the host counts as short.

import {type ChildProcess, spawn} from 'node:child_process';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import type {RankSet} from '../../src/core/types.js';
import {HostConsumersReader, pageSize, parsePss, parseStatmResident} from '../../src/system/host-consumers.js';
import {procReader} from '../../src/system/procfs.js';
import {parsePasswd, UserNames} from '../../src/system/user-names.js';
import {startCli} from '../helpers/run-cli.js';
import {until} from '../helpers/until.js';

const MIB = 1024 ** 2;
const isRoot = process.getuid?.() === 0;
const children: ChildProcess[] = [];
/** Forked by a child: not ours to reap, ended by pid. */
const grandchildren: number[] = [];
afterEach(() => {
	for (const child of children.splice(0)) child.kill('SIGKILL');
	for (const pid of grandchildren.splice(0)) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
});

/**
 * A python3 process that touches `mib` MiB page by page (so it is resident), says "ready", then sleeps; with `worker`
 * it first forks a child that shares those pages (a DataLoader worker's copy-on-write share), whose pid it prints.
 */
async function holding(
	mib: number,
	tag: string,
	options: {uid?: number; env?: Record<string, string>; worker?: boolean} = {},
): Promise<{pid: number; worker: number | null}> {
	const script = [
		'import os, sys, time',
		`x = bytearray(${mib} << 20)`,
		'for i in range(0, len(x), 4096): x[i] = 1',
		options.worker ? 'w = os.fork()\nif w == 0: time.sleep(300)' : 'w = -1',
		'print("ready", w, flush=True)',
		'time.sleep(300)',
	].join('\n');
	const child = spawn('python3', ['-c', script, tag], {
		...(options.uid === undefined ? {} : {uid: options.uid, gid: options.uid}),
		env: {PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env},
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	children.push(child);
	const said = await new Promise<string>((resolve, reject) => {
		child.stdout?.once('data', (data: Buffer) => resolve(data.toString()));
		child.once('exit', code => reject(new Error(`python3 exited ${code} before it held ${mib} MiB`)));
	});
	const worker = Number(said.trim().split(' ')[1]);
	if (worker > 0) grandchildren.push(worker);
	return {pid: child.pid!, worker: worker > 0 ? worker : null};
}

interface ConsumersEvent {
	event: 'host_consumers';
	top: {pid: number; user: string; cmd: string; pss_bytes: number | null; rss_bytes: number | null}[];
}

describe('parsers', () => {
	it('statm, smaps_rollup and /etc/passwd', () => {
		expect(parseStatmResident('61316 5421 2560 353 0 5864 0\n')).toBe(5421);
		expect(parseStatmResident('')).toBeNull();
		expect(parsePss('55d0-7ffd ---p 00000000 00:00 0 [rollup]\nRss:  21684 kB\nPss:  11373 kB\nPss_Anon: 9 kB\n')).toBe(
			11373 * 1024,
		);
		expect(parsePss('Rss: 1 kB\n')).toBeNull();
		const names = parsePasswd('root:x:0:0:root:/root:/bin/bash\nbroken\nnobody:x:65534:65534::/:/usr/sbin/nologin\n');
		expect([...names]).toEqual([
			[0, 'root'],
			[65534, 'nobody'],
		]);
		const dir = mkdtempSync(join(tmpdir(), 'traintop-passwd-'));
		try {
			writeFileSync(join(dir, 'passwd'), 'alice:x:1000:1000::/home/alice:/bin/sh\n');
			const users = new UserNames(join(dir, 'passwd'));
			expect([users.nameOf(1000), users.nameOf(4242)]).toEqual(['alice', '4242']);
		} finally {
			rmSync(dir, {recursive: true, force: true});
		}
		// The page size from traintop's own entries: a power of two, 4 KiB on x86-64.
		expect(Math.log2(pageSize(procReader())) % 1).toBe(0);
	});
});

describe('reading the host', () => {
	it('only while short, at most every 10 s, never the job: its rank and workers are left out', async () => {
		const tag = `tt-consumers-${process.pid}-${Date.now()}`;
		const {pid: rank} = await holding(64, `${tag}-rank`);
		let now = 1_000_000;
		const reader = new HostConsumersReader({now: () => now, coreShare: 1});
		const ranks = {ranks: [{pid: rank, workers: []}], jobs: [], launcher: null} as unknown as RankSet;
		expect(reader.read(ranks, false)).toBeNull();
		const first = reader.read(ranks, true)!;
		expect(first.scanned).toBeGreaterThan(0);
		expect(first.top.length).toBeLessThanOrEqual(5);
		expect(first.top.map(c => c.pid)).not.toContain(rank);
		expect(first.top.map(c => c.pid)).not.toContain(process.pid);
		// Largest first, by PSS (root reads every smaps_rollup).
		const sizes = first.top.map(c => c.pssBytes ?? c.rssBytes ?? 0);
		expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
		now += 9_000;
		expect(reader.read(ranks, true)).toBe(first);
		now += 1_000;
		expect(reader.read(ranks, true)).not.toBe(first);
		expect(reader.read(ranks, false)).toBeNull();
		// Within 0.2 % of a core: a scan that took S ms waits S / 0.002 ms before the next (at least the 10 s).
		const slow = new HostConsumersReader({now: () => now, coreShare: 1e-9});
		const once = slow.read(ranks, true);
		now += 3_600_000;
		expect(slow.read(ranks, true)).toBe(once);
	}, 30_000);
});

describe.runIf(isRoot)('a memory hog of another user while the host is short', () => {
	it('the headless list shows it with user nobody and its command, and never a rank of the job', async () => {
		const tag = `tt-hog-${process.pid}-${Date.now()}`;
		const {pid: hog} = await holding(400, `${tag}-hog`, {uid: 65534});
		// The job's rank and its worker hold more than the hog: were they not left out, they would come first.
		const {pid: rank, worker} = await holding(600, `${tag}-rank`, {env: {RANK: '0', WORLD_SIZE: '1'}, worker: true});
		const run = startCli(
			['--headless', '--json', '--no-log', '--match', `${tag}-rank`, '--interval', '0.5', '--ram-threshold', '1'],
			{env: {PATH: `/nonexistent:${process.env.PATH ?? ''}`}},
		);
		children.push(run.child);
		const events = () =>
			run
				.stdout()
				.split('\n')
				.filter(line => line.includes('"event":"host_consumers"'))
				.map(line => JSON.parse(line) as ConsumersEvent);
		const seen = await until(
			events,
			list => list.some(e => e.top.some(c => c.pid === hog)),
			'the hog in the host_consumers event',
			40_000,
			200,
		);
		for (const e of seen) {
			expect(e.top.map(c => c.pid)).not.toContain(rank);
			expect(e.top.map(c => c.pid)).not.toContain(worker);
		}
		const shown = seen.flatMap(e => e.top).find(c => c.pid === hog)!;
		expect(shown.user).toBe('nobody');
		expect(shown.cmd).toMatch(new RegExp(`^python3 -c .*${tag}-hog$`, 's'));
		// Its PSS, read as root: the 400 MiB it touched, give or take the interpreter's own pages.
		expect(shown.pss_bytes! / MIB).toBeGreaterThan(390);
		expect(run.stderr()).toMatch(/RAM short; largest not the job's: .*nobody python3 -c/);
	}, 60_000);
});

import {randomUUID} from 'node:crypto';
import {readFileSync} from 'node:fs';
import {hostname} from 'node:os';
import {describe, expect, test} from 'vitest';
import type {RankSet} from '../../src/core/types.js';
import {RankSampler} from '../../src/ranks/discover.js';
import {JobMemoryReader} from '../../src/ranks/job-memory.js';
import {procReader} from '../../src/system/procfs.js';
import {forkTwo, killedAfterEach, pssOf} from '../helpers/forked-children.js';
import {startPython, type PythonChild} from '../helpers/python-child.js';
import {until} from '../helpers/until.js';

// A real rank (python3 carrying RANK) holding a touched 200 MiB numpy array, and two forked workers that only read it,
// as DataLoader workers read a dataset their rank loaded: the pages stay shared copy-on-write. The job's PSS is checked
// against the test's own smem-style sum of `Pss:` over the three processes' smaps_rollup, read at the same moment.

const MiB = 1024 * 1024;
const ARRAY_MIB = 200;

const RANK_WITH_WORKERS = [
	'import numpy as np',
	`a = np.ones(${ARRAY_MIB} * 1024 * 1024 // 8)`,
	// Reading done: the worker says so on its own line, then waits for the end.
	forkTwo(['s = float(a.sum())', 'os.write(1, ("read %d\\n" % os.getpid()).encode())']),
].join('\n');

const {children, strays} = killedAfterEach();

async function rankWithWorkers(): Promise<{child: PythonChild; workers: number[]; set: () => Promise<RankSet>}> {
	const tag = `tt-mem-${randomUUID()}`;
	const child = await startPython(RANK_WITH_WORKERS, {RANK: '0', LOCAL_RANK: '0', WORLD_SIZE: '1'}, tag);
	children.push(child);
	const workers = child.lines.filter(l => l.startsWith('worker ')).map(l => Number(l.split(' ')[1]));
	strays.push(...workers);
	// Both workers have read the whole array (their lines come after "ready" too).
	await until(
		() => child.lines.filter(l => l.startsWith('read ')).length,
		n => n === 2,
		'both workers read the array',
		60_000,
	);
	const sampler = new RankSampler({
		proc: procReader(),
		selector: {kind: 'match', pattern: new RegExp(tag)},
		host: hostname(),
	});
	return {child, workers, set: () => sampler.sample()};
}

describe('JobMemoryReader on a real rank and its forked workers', () => {
	test('the job by PSS is within 5 % of smem-style accounting; by RSS it counts the shared array about twice more', async () => {
		const {child, workers, set} = await rankWithWorkers();
		// The workers were forked before "ready": the first scan finds them.
		const scan = await set();
		expect(scan.ranks[0]?.workers).toHaveLength(2);
		const [job] = new JobMemoryReader(procReader()).read(scan);
		const smem = [child.pid, ...workers].reduce((sum, pid) => sum + (pssOf(pid) ?? Number.NaN), 0);

		expect(job!.ranks).toHaveLength(1);
		const rank = job!.ranks[0]!;
		expect(rank.workers.map(w => w.pid).sort()).toEqual([...workers].sort());
		expect(job!.pssBytes).not.toBeNull();
		expect(Math.abs(job!.pssBytes! - smem) / smem).toBeLessThan(0.05);
		// The rank's own RSS is the scan's; each worker's is its stat's resident pages: the array in each.
		expect(rank.self.rssBytes).toBe(scan.ranks[0]!.rssBytes);
		for (const worker of rank.workers) expect(worker.rssBytes!).toBeGreaterThan(ARRAY_MIB * MiB);
		// Three processes map the one array: RSS counts it three times, PSS once, so RSS − PSS ≈ 2 arrays.
		const overcount = (job!.rssBytes! - job!.pssBytes!) / MiB;
		expect(overcount).toBeGreaterThan(1.5 * ARRAY_MIB);
		expect(overcount).toBeLessThan(2.5 * ARRAY_MIB);
		expect(job!.pssBytes! / MiB).toBeGreaterThan(ARRAY_MIB);
		expect(job!.pssAt).toBe(scan.sampledAt);
		expect(job!.trends).toEqual([]);
	}, 120_000);

	test('PSS is read again only after pss.everyMs (kept by process identity in between); a gone worker drops out', async () => {
		const {child, workers, set} = await rankWithWorkers();
		// The workers were forked before "ready": the first scan finds them.
		const scan = await set();
		expect(scan.ranks[0]?.workers).toHaveLength(2);
		const reader = new JobMemoryReader(procReader(), {pss: {everyMs: 15_000}});
		const first = reader.read(scan);
		// The same figures at a scan 5 s later: the very same array (the agent then leaves it out).
		expect(reader.read({...scan, sampledAt: scan.sampledAt + 5000})).toBe(first);

		// A worker that exits is gone from the next read; the others keep their PSS and its time.
		process.kill(workers[0]!, 'SIGKILL');
		await until(
			() => {
				try {
					return readFileSync(`/proc/${workers[0]}/stat`, 'utf8').split(') ')[1]?.[0];
				} catch {
					return 'gone';
				}
			},
			state => state === 'Z' || state === 'gone',
			'the killed worker ended',
			30_000,
		);
		const later = reader.read({...(await set()), sampledAt: scan.sampledAt + 10_000});
		const [job] = later;
		expect(job!.ranks[0]!.workers.map(w => w.pid)).toEqual([workers[1]]);
		expect(job!.pssAt).toBe(scan.sampledAt);
		expect(job!.ranks[0]!.workers[0]!.pssBytes).toBe(
			first[0]!.ranks[0]!.workers.find(w => w.pid === workers[1])!.pssBytes,
		);

		// 15 s after the first read: all read again, and the survivor's share of the array grew (one process fewer).
		const [renewed] = reader.read({...(await set()), sampledAt: scan.sampledAt + 15_000});
		expect(renewed!.pssAt).toBe(scan.sampledAt + 15_000);
		expect(renewed!.ranks[0]!.self.pssBytes!).toBeGreaterThan(first[0]!.ranks[0]!.self.pssBytes!);
		expect(
			Math.abs(renewed!.pssBytes! - ((pssOf(child.pid) ?? Number.NaN) + (pssOf(workers[1]!) ?? Number.NaN))) /
				renewed!.pssBytes!,
		).toBeLessThan(0.05);
	}, 120_000);
});

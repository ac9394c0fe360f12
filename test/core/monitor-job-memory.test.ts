import {randomUUID} from 'node:crypto';
import {hostname} from 'node:os';
import {afterEach, expect, test} from 'vitest';
import type {JobMemory} from '../../src/core/memory-types.js';
import {Monitor} from '../../src/core/monitor.js';
import {RankSampler} from '../../src/ranks/discover.js';
import {JobMemoryReader} from '../../src/ranks/job-memory.js';
import {procReader} from '../../src/system/procfs.js';
import {startPython, type PythonChild} from '../helpers/python-child.js';
import {ScriptedSources} from '../helpers/snapshots.js';
import {TEST_THRESHOLDS} from '../helpers/scripted-monitor.js';

// The Monitor reads each job's memory right after each rank scan, of a real rank, and carries the reader's array in
// every snapshot until the next scan, with each process's trend: the same object in between (the agent sends it only
// when it changed).

const children: PythonChild[] = [];
afterEach(() => {
	for (const child of children.splice(0)) child.kill('SIGKILL');
});

test('jobMemory: read after each scan, the same array between scans', async () => {
	const tag = `tt-monmem-${randomUUID()}`;
	const child = await startPython('', {RANK: '0', WORLD_SIZE: '1'}, tag);
	children.push(child);
	const sampler = new RankSampler({
		proc: procReader(),
		selector: {kind: 'match', pattern: new RegExp(tag)},
		host: hostname(),
	});
	const reader = new JobMemoryReader(procReader());
	const reads: unknown[] = [];
	const sources = Object.assign(new ScriptedSources(), {
		readRanks: () => sampler.sample(),
		readJobMemory: (set: Parameters<JobMemoryReader['read']>[0]) => {
			const memory = reader.read(set);
			reads.push(memory);
			return memory;
		},
	});
	let now = Date.now();
	const monitor = new Monitor({
		sources,
		thresholds: TEST_THRESHOLDS,
		intervalMs: 1000,
		ranksIntervalMs: 2000,
		host: 'h',
		now: () => now,
	});
	const first = await monitor.tick();
	expect(reads).toHaveLength(1);
	// The reader's figures, with the trend judge's verdict on each process added (learning, at the first point).
	expect(first.jobMemory).toHaveLength(1);
	expect(first.jobMemory![0]!.ranks).toBe((reads[0] as JobMemory[])[0]!.ranks);
	expect(first.jobMemory![0]!.trends).toEqual([
		expect.objectContaining({pid: child.pid, role: 'rank', state: 'learning'}),
	]);
	expect(first.jobMemory![0]!.ranks[0]).toMatchObject({
		pid: child.pid,
		self: {rssBytes: first.ranks!.ranks[0]!.rssBytes},
	});
	expect(first.jobMemory![0]!.pssBytes).toBeGreaterThan(0);
	now += 1000;
	const between = await monitor.tick();
	expect(reads).toHaveLength(1);
	expect(between.jobMemory).toBe(first.jobMemory);
	now += 1000;
	await monitor.tick();
	expect(reads).toHaveLength(2);
});

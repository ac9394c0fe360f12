import {describe, expect, test} from 'vitest';
import {PssCache} from '../../src/ranks/pss-cache.js';
import {procReader} from '../../src/system/procfs.js';
import {parseSmapsRollup} from '../../src/system/smaps-rollup.js';
import {forkTwo, killedAfterEach} from '../helpers/forked-children.js';
import {startPython} from '../helpers/python-child.js';

// The PSS budget on real processes (a python3 and two children it forked): each read is timed for real, and the scan
// times are the test's, so what is read when is decided by the budget alone.

const FORK_TWO = forkTwo();

const {children, strays} = killedAfterEach();

async function three() {
	const child = await startPython(FORK_TWO, {}, `tt-pss-${process.pid}-${Date.now()}`);
	children.push(child);
	const workers = child.lines.map(l => Number(l.split(' ')[1]));
	strays.push(...workers);
	const proc = procReader();
	const ids = [child.pid, ...workers].map(pid => ({pid, startTime: proc.stat(pid)!.startTime}));
	const reads: number[] = [];
	const read = (pid: number) => {
		reads.push(pid);
		return parseSmapsRollup(proc.file!(pid, 'smaps_rollup') ?? '')?.pssBytes ?? null;
	};
	return {ids, reads, read};
}

describe('PssCache', () => {
	test('new processes are read at once; stale ones, oldest first, only as far as a scan may spend', async () => {
		const {ids, reads, read} = await three();
		// A scan may spend nothing: one re-read a scan, never more.
		const cache = new PssCache(read, {everyMs: 15_000, scanMs: 0});
		const first = cache.update(ids, 0);
		expect(reads).toEqual(ids.map(p => p.pid));
		expect([...first.values()].every(f => f.bytes! > 0 && f.at === 0)).toBe(true);
		cache.update(ids, 10_000);
		expect(reads).toHaveLength(3);
		const at15 = cache.update(ids, 15_000);
		expect(reads).toHaveLength(4);
		expect([...at15.values()].map(f => f.at).sort()).toEqual([0, 0, 15_000]);
		const at16 = cache.update(ids, 16_000);
		// The oldest two are refreshed in turn: the one read at 15 s is not the next.
		expect(reads).toHaveLength(5);
		expect(reads[4]).not.toBe(reads[3]);
		expect([...at16.values()].map(f => f.at).sort()).toEqual([0, 15_000, 16_000]);
	});

	test('the interval grows with the measured cost where reading every 15 s would exceed the budget', async () => {
		const {ids, reads, read} = await three();
		const frugal = new PssCache(read, {everyMs: 15_000, cpuShare: 1e-7});
		frugal.update(ids, 0);
		// Three reads of ~0.1–1 ms each over 1e-7 of a core: hours, not 15 s.
		expect(frugal.intervalMs(3)).toBeGreaterThan(3_600_000);
		frugal.update(ids, 60_000);
		expect(reads).toHaveLength(3);
		const usual = new PssCache(read, {everyMs: 15_000});
		usual.update(ids, 0);
		expect(usual.intervalMs(3)).toBe(15_000);
	});

	test('a process gone from the scan is dropped; a pid reused by another process is read afresh', async () => {
		const {ids, reads, read} = await three();
		const cache = new PssCache(read, {everyMs: 15_000});
		cache.update(ids, 0);
		const [rank, w1] = ids;
		const next = cache.update([rank!, {...w1!, startTime: w1!.startTime + 1}], 1000);
		expect(next.size).toBe(2);
		expect(reads).toEqual([...ids.map(p => p.pid), w1!.pid]);
	});
});

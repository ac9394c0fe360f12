import {copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, test} from 'vitest';
import {JobMemoryReader} from '../../src/ranks/job-memory.js';
import {pageSizeOf} from '../../src/ranks/page-size.js';
import {procReader} from '../../src/system/procfs.js';
import {GIB, job, jobSet, rank} from '../ui/fixtures.js';

// The reader over a /proc-shaped tree of recorded files (test/fixtures/proc/README.md): a rank whose smaps_rollup is
// the recorded parent's, a worker whose stat is background-python's and whose smaps_rollup cannot be read (another
// user's process, a kernel without it), and a worker gone since the scan. What is unknown stays unknown in the sums.

const FIXTURES = path.join(import.meta.dirname, '../fixtures/proc');
const STAT = readFileSync(path.join(FIXTURES, 'background-python/stat'), 'utf8');
const STATUS = readFileSync(path.join(FIXTURES, 'background-python/status'), 'utf8');
/** background-python's stat: 2010 resident pages, started at tick 212912. */
const WORKER_PAGES = 2010;

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true});
});

function tree(files: Record<string, string>): string {
	const root = mkdtempSync(path.join(tmpdir(), 'tt-jobmem-'));
	dirs.push(root);
	for (const [name, text] of Object.entries(files)) {
		mkdirSync(path.dirname(path.join(root, name)), {recursive: true});
		writeFileSync(path.join(root, name), text);
	}
	return root;
}

describe('JobMemoryReader over recorded /proc files', () => {
	test('an unreadable smaps_rollup leaves that PSS and every sum over it unknown; RSS still adds up', () => {
		const root = tree({'10000/stat': STAT, '20000/stat': STAT});
		copyFileSync(path.join(FIXTURES, 'smaps-rollup/parent'), path.join(root, '10000/smaps_rollup'));
		const one = rank(0, {pid: 10_000, rssBytes: 237_240 * 1024, gpuMemoryBytes: 2 * GIB, workers: [20_000, 20_001]});
		const set = jobSet([job('torchrun:9999', [one]), job('torchrun:7777', [])]);
		const [memory, ...others] = new JobMemoryReader(procReader(root), {pageSize: 4096}).read(set);

		// A job without ranks has nothing of its own to read.
		expect(others).toEqual([]);
		expect(memory).toEqual({
			job: 'torchrun:9999',
			ranks: [
				{
					rank: 0,
					pid: 10_000,
					self: {pid: 10_000, rssBytes: 237_240 * 1024, pssBytes: 123_523 * 1024},
					// 20001 has no stat: gone since the scan, not the rank's any more.
					workers: [{pid: 20_000, rssBytes: WORKER_PAGES * 4096, pssBytes: null}],
					rssBytes: 237_240 * 1024 + WORKER_PAGES * 4096,
					pssBytes: null,
					gpuBytes: 2 * GIB,
				},
			],
			rssBytes: 237_240 * 1024 + WORKER_PAGES * 4096,
			pssBytes: null,
			gpuBytes: 2 * GIB,
			pssAt: set.sampledAt,
			trends: [],
			reachesThresholdAt: null,
			growthBytesPerMin: 0,
		});
	});

	test('a rank whose own RSS is unknown makes its and the job RSS unknown; no GPU reading, no GPU sum', () => {
		const root = tree({'20000/stat': STAT});
		const set = jobSet([job('j', [rank(0, {pid: 10_000, rssBytes: null, gpuMemoryBytes: null, workers: [20_000]})])]);
		const [memory] = new JobMemoryReader(procReader(root), {pageSize: 4096}).read(set);
		expect(memory).toMatchObject({rssBytes: null, pssBytes: null, gpuBytes: null});
		expect(memory!.ranks[0]!.rssBytes).toBeNull();
	});
});

describe('pageSizeOf', () => {
	test("the page size that makes stat's resident pages VmRSS", () => {
		// background-python: 2010 pages, VmRSS 8192 kB read a moment apart: 4 KiB pages.
		expect(pageSizeOf(procReader(tree({'1/stat': STAT, '1/status': STATUS})), 1)).toBe(4096);
		// The same count with 16 KiB pages (arm64): VmRSS four times as large.
		const arm = STATUS.replace(/VmRSS:\s+\d+ kB/, `VmRSS:\t${(WORKER_PAGES * 16_384) / 1024} kB`);
		expect(pageSizeOf(procReader(tree({'1/stat': STAT, '1/status': arm})), 1)).toBe(16_384);
		// Unreadable: the x86-64 page.
		expect(pageSizeOf(procReader(tree({})), 1)).toBe(4096);
		// This machine, read off this process.
		expect([4096, 16_384, 65_536]).toContain(pageSizeOf(procReader()));
	});
});

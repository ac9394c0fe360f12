import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import type {HostMemory} from '../../../src/core/types.js';
import RanksPane, {type Props, ranksPane} from '../../../src/ui/panes/RanksPane.js';
import {paneMemory} from '../../../src/ui/panes/rank-memory.js';
import {jobMemoryOf} from '../../helpers/job-memory-data.js';
import {hostMemory} from '../../helpers/snapshots.js';
import {expectFits, frameLines, GIB, NOW, rankSet, twoJobs} from '../fixtures.js';
import {snapshotOf} from '../fleet/fleet-fixtures.js';

// A job's own memory on the ranks pane, rendered by Ink: a memory line under the job (PSS, RSS where the workers'
// shared pages make it differ, the share of the RAM threshold's basis, GPU memory), each rank row's RSS the rank with
// its DataLoader workers, and a PSS column beside it only in the wide rows and only where PSS and RSS differ.

afterEach(cleanup);

const NONE = new Set<number>();
const set = rankSet(2);
const base: Props = {ranks: set, error: null, cursor: 0, marked: NONE, width: 200, height: 12, now: NOW};
// Each rank: its own 3.1 GiB and 2 workers of 2 GiB by RSS; by PSS 2.5 GiB and 0.5 GiB each: 7.1 GiB vs 3.5 GiB.
const shared = {jobs: jobMemoryOf(set), host: hostMemory(43)};

describe('the job memory on the ranks pane', () => {
	test('a memory line under the job; RSS is rank + workers, and a PSS column beside it', () => {
		const {lastFrame} = render(<RanksPane {...base} memory={shared} />);
		const lines = expectFits(lastFrame(), 200, 12);
		expect(lines).toContain(
			'   memory 7.0 GiB PSS · RSS 14.2 GiB (workers share pages) · 10.9% of RAM (host at 43.0%) · GPU 24.0 GiB',
		);
		expect(lines[1]).toMatch(/^ {3}RANK {5}PID ST {2}CPU% {6}RSS {6}PSS {6}GPU WRK /);
		const row = lines.find(l => l.includes(String(set.ranks[1]!.pid)));
		expect(row).toMatch(/ 7\.1 GiB {2}3\.5 GiB 12\.0 GiB {3}2 /);
	});

	test("against the job's cgroup limit where it has one", () => {
		const limited: HostMemory = {
			...hostMemory(20),
			cgroup: {scope: 'job', version: 2, path: '/job_5', limitBytes: 32 * GIB, usedBytes: 16 * GIB, percent: 50},
		};
		const {lastFrame} = render(<RanksPane {...base} memory={{...shared, host: limited}} />);
		expect(frameLines(lastFrame()).find(l => l.startsWith('   memory'))).toBe(
			'   memory 7.0 GiB PSS · RSS 14.2 GiB (workers share pages) · 21.9% of the job cgroup limit 32.0 GiB (at 50.0%) · GPU 24.0 GiB',
		);
	});

	test('no PSS column where PSS and RSS agree within 5 %, nor in the compact rows', () => {
		// Workers that hold their own pages: PSS = RSS.
		const own = jobMemoryOf(set, {workerPss: 2 * GIB, selfPss: 3.1 * GIB});
		const agreeing = render(<RanksPane {...base} memory={{jobs: own, host: null}} />);
		const lines = frameLines(agreeing.lastFrame());
		expect(lines[1]).not.toContain('PSS');
		expect(lines).toContain('   memory 14.2 GiB PSS · GPU 24.0 GiB');
		const compact = render(<RanksPane {...base} width={80} compact memory={shared} />);
		const narrow = expectFits(compact.lastFrame(), 80, 12);
		expect(narrow[1]).not.toContain('PSS');
		expect(narrow.find(l => l.includes(String(set.ranks[0]!.pid)))).toContain(' 7.1 GiB ');
		// Cut at the pane's width, the sizes first.
		const line = narrow.find(l => l.startsWith('   memory'));
		expect(line).toMatch(/^ {3}memory 7\.0 GiB PSS · RSS 14\.2 GiB \(workers share pages\) · 10\.9% .*…$/);
	});

	test('an unreadable PSS: the RSS, said so; several jobs: each its line under its header', () => {
		const two = twoJobs();
		const jobs = jobMemoryOf(two, {workerPss: null});
		const {lastFrame} = render(<RanksPane {...base} ranks={two} height={16} memory={{jobs, host: hostMemory(43)}} />);
		const lines = expectFits(lastFrame(), 200, 16);
		const second = lines.findIndex(l => l.startsWith(`JOB ${two.jobs[1]!.id}`));
		expect(lines[second + 1]).toBe(
			'   memory 21.3 GiB RSS (PSS unknown) · 33.3% by RSS of RAM (host at 43.0%) · GPU 36.0 GiB',
		);
		expect(lines[1]).not.toContain('PSS');
	});

	test("the pane asks a row for each job's memory line, and draws it from the snapshot", () => {
		const snapshot = snapshotOf('node1', NOW, {ranks: set, jobMemory: shared.jobs, memory: hostMemory(43)});
		const data = {snapshot} as Parameters<typeof ranksPane.need>[0];
		const room = {width: 200, budget: 40};
		const without = ranksPane.need({...data, snapshot: {...snapshot, jobMemory: []}}, room);
		expect(ranksPane.need(data, room).want).toBe(without.want + 1);
		expect(paneMemory(snapshot)).toEqual({...shared, now: NOW});
	});
});

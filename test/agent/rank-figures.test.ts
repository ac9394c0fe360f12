import {describe, expect, test} from 'vitest';
import {parseAgentMessage} from '../../src/agent/protocol.js';
import {withFigures} from '../../src/agent/rank-figures.js';
import {fullSnapshot, wireSnapshot} from '../../src/agent/wire-snapshot.js';
import type {RankSet, Snapshot} from '../../src/core/types.js';
import {snapshotOf} from '../ui/fleet/fleet-fixtures.js';
import {twoJobs} from '../ui/fixtures.js';

// Protocol 3: a scan that renewed only the ranks' CPU, memory and state sends those figures, not the whole set; the
// reader rebuilds the set it would have got whole. Through real JSON lines, as an agent writes and a viewer parses.

const NOW = 1_795_000_000_000;
const NONE = {recentAlerts: [], recentEvents: []};

/** The next scan of `set`: every rank's figures renewed (new objects, as a rank scan makes them). */
function rescanned(set: RankSet, by: number): RankSet {
	const jobs = set.jobs.map(job => ({
		...job,
		ranks: job.ranks.map(rank => ({
			...rank,
			cpuPercent: (rank.cpuPercent ?? 0) + by,
			rssBytes: (rank.rssBytes ?? 0) + by * 1024,
			state: by % 2 === 0 ? 'R' : 'S',
			stalled: by > 2,
		})),
	}));
	return {...set, jobs, ranks: jobs.flatMap(job => job.ranks), sampledAt: set.sampledAt + by * 2000};
}

/** What the agent writes for `snapshot` after `previous`, and what the viewer makes of it after `held`. */
function across(snapshot: Snapshot, previous: Snapshot | null, held: Snapshot | null) {
	const sent = JSON.stringify({kind: 'snapshot', host: 'gpu2', snapshot: wireSnapshot(snapshot, previous)});
	const parsed = parseAgentMessage(sent);
	if (!parsed.ok || parsed.value.kind !== 'snapshot') throw new Error(`not parsed: ${sent}`);
	return {line: sent, wire: parsed.value.snapshot, full: fullSnapshot(parsed.value.snapshot, held, NONE)};
}

describe('a scan of the same jobs and ranks', () => {
	const first = snapshotOf('gpu2', NOW, {ranks: twoJobs()});
	const second = snapshotOf('gpu2', NOW + 2000, {ranks: rescanned(first.ranks!, 3)});

	test('travels as figures, and the reader rebuilds the set it would have got whole', () => {
		const whole = across(first, null, null);
		expect(whole.wire.ranks).toBeDefined();
		const next = across(second, first, whole.full);
		expect(next.wire.ranks).toBeUndefined();
		expect(next.wire.rankFigures?.ranks).toHaveLength(second.ranks!.ranks.length);
		expect(next.full.ranks).toEqual(across(second, null, null).full.ranks);
		expect(next.line.length).toBeLessThan(across(second, null, null).line.length / 2);
		expect('rankFigures' in next.full).toBe(false);
	});

	test('anything else that changed (a command, a signal handler, a rank more) sends the set whole', () => {
		const [job, ...rest] = second.ranks!.jobs;
		const handler = {...job!.ranks[0]!.signals, SIGUSR1: {...job!.ranks[0]!.signals.SIGUSR1!, disposition: 'default'}};
		const changed = {...job!, ranks: [{...job!.ranks[0]!, signals: handler}, ...job!.ranks.slice(1)]};
		const jobs = [changed, ...rest] as RankSet['jobs'];
		const other = snapshotOf('gpu2', NOW + 2000, {ranks: {...second.ranks!, jobs, ranks: jobs.flatMap(j => j.ranks)}});
		expect(across(other, first, null).wire.ranks).toBeDefined();
		const fewer = {...second.ranks!, jobs: second.ranks!.jobs.slice(1)};
		expect(across(snapshotOf('gpu2', NOW + 2000, {ranks: fewer}), first, null).wire.ranks).toBeDefined();
	});

	test('figures that do not fit the set held (another pid in a place, another count) leave it as it was', () => {
		const held = first.ranks!;
		const figures = across(second, first, null).wire.rankFigures!;
		const moved = {...figures, ranks: figures.ranks.map((f, i) => (i === 0 ? {...f, pid: f.pid + 1} : f))};
		expect(withFigures(held, moved)).toBeNull();
		expect(withFigures(held, {...figures, ranks: figures.ranks.slice(1)})).toBeNull();
		const full = fullSnapshot({...across(second, first, null).wire, rankFigures: moved}, first, NONE);
		expect(full.ranks).toBe(held);
	});
});

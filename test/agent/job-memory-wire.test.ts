import {describe, expect, test} from 'vitest';
import {parseAgentMessage} from '../../src/agent/protocol.js';
import {fullSnapshot, type WireSnapshot, wireSnapshot} from '../../src/agent/wire-snapshot.js';
import {checkedWireValue} from '../../src/agent/wire-values.js';
import type {Snapshot} from '../../src/core/types.js';
import {NOW} from '../helpers/checkpoint-data.js';
import {jobMemoryOf} from '../helpers/job-memory-data.js';
import {snapshotOf} from '../ui/fleet/fleet-fixtures.js';
import {twoJobs} from '../ui/fixtures.js';

// Each job's memory on the agent stream: a slow part, sent when the reader's array is new (it keeps the same one while
// no figure changed), carried over by the receiver otherwise; an older agent sends none, and a job without its ranks
// or a PSS time out of range is refused, naming where.

const sent = (snapshot: Snapshot, previous: Snapshot | null): WireSnapshot =>
	JSON.parse(JSON.stringify(wireSnapshot(snapshot, previous)));

const RECENT = {recentAlerts: [], recentEvents: []};

describe('job memory on the wire', () => {
	const ranks = twoJobs();
	const jobMemory = jobMemoryOf(ranks);
	const first = snapshotOf('node1', NOW, {ranks, jobMemory});

	test('sent once, left out while the same array, carried over by the reader; a new array is sent', () => {
		const got1 = fullSnapshot(sent(first, null), null, RECENT);
		expect(got1.jobMemory).toEqual(jobMemory);
		const second: Snapshot = {...first, time: NOW + 1000, tick: 2};
		const wire2 = sent(second, first);
		expect('jobMemory' in wire2).toBe(false);
		const got2 = fullSnapshot(wire2, got1, RECENT);
		expect(got2.jobMemory).toBe(got1.jobMemory);
		const renewed = jobMemoryOf(ranks, {selfPss: 3 * 1024 ** 3, pssAt: NOW + 15_000});
		const third: Snapshot = {...second, time: NOW + 15_000, tick: 3, jobMemory: renewed};
		const got3 = fullSnapshot(sent(third, second), got2, RECENT);
		expect(got3.jobMemory).toEqual(renewed);
	});

	test('an older agent sends none: no memory is made up', () => {
		const {jobMemory: _m, ...older} = sent(first, null);
		expect(fullSnapshot(older as WireSnapshot, null, RECENT).jobMemory).toEqual([]);
	});

	test('a job without its ranks, a worker without a pid, or a PSS time out of range is refused, naming where', () => {
		const refused = (snapshot: unknown) =>
			JSON.stringify(parseAgentMessage(JSON.stringify({kind: 'snapshot', host: 'node1', snapshot})));
		const {ranks: _r, ...noRanks} = jobMemory[0]!;
		expect(refused(sent({...first, jobMemory: [noRanks as never]}, null))).toContain(
			'snapshot.jobMemory[0].ranks: an array',
		);
		const rank = jobMemory[1]!.ranks[2]!;
		const noPid = {...jobMemory[1]!, ranks: [rank, {...rank, workers: [{rssBytes: 1, pssBytes: 1}]}]};
		expect(refused(sent({...first, jobMemory: [jobMemory[0]!, noPid as never]}, null))).toContain(
			'snapshot.jobMemory[1].ranks[1].workers: an array of processes',
		);
		const late = sent({...first, jobMemory: [{...jobMemory[0]!, pssAt: 1e300}]}, null);
		expect(checkedWireValue(late)).toEqual({ok: false, error: 'jobMemory[0].pssAt = 1e+300 is not a time (epoch ms)'});
	});
});

import {describe, expect, test} from 'vitest';
import {parseAgentMessage} from '../../src/agent/protocol.js';
import {fullSnapshot, type WireSnapshot, wireSnapshot} from '../../src/agent/wire-snapshot.js';
import {checkedWireValue} from '../../src/agent/wire-values.js';
import type {JobProgress} from '../../src/core/progress-types.js';
import type {Snapshot} from '../../src/core/types.js';
import {NOW} from '../helpers/checkpoint-data.js';
import {recordedRasState} from '../helpers/nccl-ras-state.js';
import {hungProgress} from '../helpers/progress-data.js';
import {snapshotOf} from '../ui/fleet/fleet-fixtures.js';
import {twoJobs} from '../ui/fixtures.js';

// Each job's progress and NCCL's RAS answer on the agent stream: slow parts, sent when the Monitor's object is new (the
// judge keeps the same array between rank scans), carried over by the reader otherwise; an older agent sends none, and
// a verdict or a time out of shape is refused with the message.

const hung = hungProgress('torchrun:4200', {rank: 1, pid: 4202}, {ranks: [0], pids: [4201]}, NOW);

const ras = recordedRasState(NOW - 5000);

const sent = (snapshot: Snapshot, previous: Snapshot | null): WireSnapshot =>
	JSON.parse(JSON.stringify(wireSnapshot(snapshot, previous)));

const RECENT = {recentAlerts: [], recentEvents: []};

describe('progress and NCCL RAS on the wire', () => {
	const progress = [hung];
	const first = snapshotOf('node1', NOW, {ranks: twoJobs(), progress, ncclRas: ras});

	test('sent once, left out while the same object, carried over by the reader', () => {
		const got1 = fullSnapshot(sent(first, null), null, RECENT);
		expect(got1.progress).toEqual(progress);
		expect(got1.ncclRas).toEqual(ras);
		const second: Snapshot = {...first, time: NOW + 1000, tick: 2};
		const wire2 = sent(second, first);
		expect('progress' in wire2).toBe(false);
		expect('ncclRas' in wire2).toBe(false);
		const got2 = fullSnapshot(wire2, got1, RECENT);
		expect(got2.progress).toBe(got1.progress);
		expect(got2.ncclRas).toBe(got1.ncclRas);
	});

	test('an older agent sends no progress: none is made up', () => {
		const {progress: _p, ncclRas: _r, ...older} = sent(first, null);
		const got = fullSnapshot(older as WireSnapshot, null, RECENT);
		expect(got.progress).toEqual([]);
		expect(got.ncclRas ?? null).toBeNull();
	});

	test('a verdict or a time out of shape is refused, naming where', () => {
		const wrong = sent({...first, progress: [{...hung, verdict: 'frozen' as JobProgress['verdict']}]}, null);
		const parsed = parseAgentMessage(JSON.stringify({kind: 'snapshot', host: 'node1', snapshot: wrong}));
		expect(parsed).toMatchObject({ok: false});
		expect(JSON.stringify(parsed)).toContain('snapshot.progress[0].verdict: progressing, stalled, hung or unknown');
		const late = sent({...first, progress: [{...hung, since: 1e300}]}, null);
		expect(checkedWireValue(late)).toEqual({ok: false, error: 'progress[0].since = 1e+300 is not a time (epoch ms)'});
	});
});

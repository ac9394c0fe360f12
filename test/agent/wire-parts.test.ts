import {describe, expect, test} from 'vitest';
import {fullSnapshot, wireSnapshot} from '../../src/agent/wire-snapshot.js';
import {freshLastSave, fullRankSet, sameButAge, slimRankSet} from '../../src/agent/wire-parts.js';
import {rankToWire} from '../../src/agent/wire-tasks.js';
import {lastSaveAt} from '../../src/checkpoints/retention.js';
import type {CheckpointIndex, RankSet, Snapshot} from '../../src/core/types.js';
import {checkpointIndex, NOW} from '../helpers/checkpoint-data.js';
import {snapshotOf} from '../ui/fleet/fleet-fixtures.js';
import {twoJobs} from '../ui/fixtures.js';

// What the slow parts cost on the wire: an index whose last save only aged is not sent again (the receiver ages it
// by the snapshot's time), and ranks go once, in their jobs. Each case is one a naive sender would get wrong.

/** The index as the checkpoint watcher renews it a second later: a new object, only the last save's age grown. */
function aged(index: CheckpointIndex, byS: number): CheckpointIndex {
	return {...index, lastSave: lastSaveAt(index.lastSave!, index.lastSave!.time + (index.lastSave!.ageS + byS) * 1000)};
}

describe('sameButAge', () => {
	const index = checkpointIndex();

	test('an index renewed only because its last save aged is the same', () => {
		expect(sameButAge(index, aged(index, 1))).toBe(true);
		expect(sameButAge(index, index)).toBe(true);
		expect(sameButAge(null, null)).toBe(true);
	});

	test('a new save, a new checkpoint list or disk reading, or an index appearing is a change', () => {
		const later = {...index, lastSave: {...index.lastSave!, time: index.lastSave!.time + 60_000}};
		expect(sameButAge(index, later)).toBe(false);
		expect(sameButAge(index, {...aged(index, 1), checkpoints: [...index.checkpoints]})).toBe(false);
		expect(sameButAge(index, {...index, disk: {...index.disk, freeBytes: 1}})).toBe(false);
		expect(sameButAge(null, index)).toBe(false);
		expect(sameButAge(index, {...index, lastSave: null})).toBe(false);
	});
});

describe('freshLastSave', () => {
	const index = checkpointIndex();
	const {time, ageS} = index.lastSave!;

	test('ages the last save to the given time, overdue once past the overdueAt the watcher judged', () => {
		const judged = {...index, lastSave: {...index.lastSave!, overdue: false, overdueAt: time + 1999_000}};
		expect(freshLastSave(judged, time + 1999 * 1000)?.lastSave?.overdue).toBe(false);
		const at = freshLastSave(judged, time + 2000 * 1000);
		expect(at?.lastSave?.ageS).toBe(2000);
		expect(at?.lastSave?.overdue).toBe(true);
		expect(at?.checkpoints).toBe(index.checkpoints);
		// A new overdueAt (a rescan judged the cadence again) is news for the receiver.
		expect(sameButAge(judged, {...judged, lastSave: {...judged.lastSave, overdueAt: time + 3000_000}})).toBe(false);
	});

	test('keeps the same object within the same whole second (no new frame for nothing)', () => {
		// As the agent's watcher left it (the fixture's overdue flag is not lastSaveAt's for its age).
		const settled = freshLastSave(index, time + ageS * 1000)!;
		expect(freshLastSave(settled, time + (ageS + 0.4) * 1000)).toBe(settled);
		expect(freshLastSave(settled, time + (ageS + 1) * 1000)).not.toBe(settled);
		expect(freshLastSave(null, NOW)).toBeNull();
	});
});

describe('ranks once, in their jobs', () => {
	const set: RankSet = twoJobs();

	test('the flat list is left out and rebuilt as every job’s ranks in job order', () => {
		const slim = slimRankSet(set);
		expect(slim && 'ranks' in slim).toBe(false);
		expect(JSON.stringify(slim).length).toBeLessThan(JSON.stringify(set).length * 0.6);
		expect(fullRankSet(JSON.parse(JSON.stringify(slim)))).toEqual(set);
	});

	test('a rank set that carries its flat list (an agent before protocol 2) is read as it is', () => {
		const older = {...slimRankSet(set)!, ranks: set.ranks.map(rankToWire)};
		expect(fullRankSet(JSON.parse(JSON.stringify(older)))).toEqual(set);
		expect(fullRankSet(null)).toBeNull();
	});
});

describe('a snapshot through the wire and back', () => {
	test('after the first, an index that only aged is not sent, and the receiver shows it aged by the node’s clock', () => {
		const index = checkpointIndex();
		const first: Snapshot = snapshotOf('node1', NOW, {checkpoints: index, ranks: twoJobs()});
		const second: Snapshot = {...first, time: first.time + 5000, checkpoints: aged(index, 5)};
		const wire1 = JSON.parse(JSON.stringify(wireSnapshot(first, null)));
		const wire2 = JSON.parse(JSON.stringify(wireSnapshot(second, first)));
		expect('checkpoints' in wire2).toBe(false);
		const recent = {recentAlerts: [], recentEvents: []};
		const got = fullSnapshot(wire2, fullSnapshot(wire1, null, recent), recent);
		expect(got.checkpoints?.lastSave?.time).toBe(index.lastSave!.time);
		expect(got.checkpoints?.lastSave?.ageS).toBeCloseTo((second.time - index.lastSave!.time) / 1000, 3);
		expect(got.ranks).toEqual(first.ranks);
	});
});

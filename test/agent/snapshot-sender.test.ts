import {describe, expect, test} from 'vitest';
import {fullSnapshot} from '../../src/agent/wire-snapshot.js';
import {SnapshotSender} from '../../src/agent/snapshot-sender.js';
import {lastSaveAt} from '../../src/checkpoints/retention.js';
import {Monitor, type MonitorThresholds} from '../../src/core/monitor.js';
import type {CheckpointIndex, Snapshot} from '../../src/core/types.js';
import {checkpointIndex, NOW} from '../helpers/checkpoint-data.js';
import {hostMemory, ScriptedSources} from '../helpers/snapshots.js';

// What goes out when the reader falls behind: snapshots of the Monitor (scripted sources, a scripted clock) are held
// back while the last message is not taken, and the next message sent still says everything that changed.

const rules = {critical: 85, warnMargin: 10, hysteresis: 2};
const thresholds: MonitorThresholds = {ram: rules, swap: {...rules, critical: 50}, gpu: {...rules, critical: 90}};

function setup() {
	const state: {index: CheckpointIndex | null} = {index: null};
	const sources = Object.assign(new ScriptedSources(), {checkpoints: {getIndex: () => state.index}});
	let now = NOW;
	const monitor = new Monitor({sources, thresholds, intervalMs: 1000, host: 'node-3', now: () => now});
	const tick = () => {
		now += 1000;
		return monitor.tick();
	};
	return {state, sources, tick};
}

describe('a reader that falls behind', () => {
	test("held-back snapshots' alerts ride on the next message, and a part changed meanwhile is not omitted", async () => {
		const {state, sources, tick} = setup();
		const sender = new SnapshotSender('node-3');
		const first = sender.next(await tick(), false);
		expect(first?.snapshot.checkpoints).toBeNull();

		// RAM turns critical and a checkpoint index appears while the reader is behind: nothing is sent.
		sources.memory = hostMemory(95);
		state.index = checkpointIndex();
		const held = await tick();
		expect(held.newAlerts.map(a => `${a.metric} ${a.to}`)).toEqual(['ram critical']);
		expect(sender.next(held, true)).toBeNull();
		expect(sender.skipped).toBe(1);

		// The next one sent carries the alert (its own tick has none: RAM is still critical) and the index, which is
		// the same object as in the held snapshot but new to the reader.
		const next = await tick();
		expect(next.newAlerts).toEqual([]);
		expect(next.checkpoints).toBe(held.checkpoints);
		const caughtUp = sender.next(next, false);
		expect(caughtUp?.snapshot.newAlerts.map(a => `${a.metric} ${a.to}`)).toEqual(['ram critical']);
		expect(caughtUp?.snapshot.checkpoints).toBe(state.index);

		// Caught up: the alert is not said twice, and the unchanged index is left out.
		const after = sender.next(await tick(), false);
		expect(after?.snapshot.newAlerts).toEqual([]);
		expect(after && 'checkpoints' in after.snapshot).toBe(false);

		// The receiver's side rebuilds the whole picture from what was sent.
		const recent = {recentAlerts: [], recentEvents: []};
		let rebuilt: Snapshot | null = null;
		for (const message of [first, caughtUp, after]) rebuilt = fullSnapshot(message!.snapshot, rebuilt, recent);
		// The index as the agent would show it by then: its last save aged to the last snapshot's time, on the receiver.
		const aged = lastSaveAt(state.index.lastSave!, after!.snapshot.time);
		expect(aged.ageS).toBe(1804);
		expect(rebuilt?.checkpoints).toEqual({...state.index, lastSave: aged});
		expect(rebuilt?.metrics.ram?.value).toBe(95);
	});
});

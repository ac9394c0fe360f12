// The save a signal asked for on a node, from that node's snapshots (src/fleet/node-save.ts). The snapshots follow
// what the agent's watcher makes of a job that saves on a 300-step cadence, with names that say only the step
// (test/helpers/signal-save-job.py's generic layout): its periodic saves are unknown, its answer relabelled manual.

import {describe, expect, it} from 'vitest';
import {awaitNodeSave} from '../../src/fleet/node-save.js';
import type {Checkpoint, Snapshot} from '../../src/core/types.js';
import {checkpoint} from '../helpers/checkpoint-data.js';

const SENT = Date.UTC(2026, 10, 29, 10);

function ckpt(step: number, kind: Checkpoint['kind'], time: number, kindNote?: string): Checkpoint {
	const name = `ckpt_step${step}.pt`;
	const generic = {path: `/run/${name}`, name, layout: 'generic', epoch: null, time, kind, group: 'generic:.'} as const;
	return checkpoint(step, 0, {...generic, ...(kindNote === undefined ? {} : {kindNote})});
}

/** One node's snapshots, its current one and the listeners, as Fleet keeps them. */
function fakeFleet(first: readonly Checkpoint[]) {
	let snapshot = {checkpoints: {checkpoints: first}} as unknown as Snapshot;
	const listeners = new Set<(node: string, snapshot: Snapshot) => void>();
	return {
		current: () => ({nodes: [{name: 'node1', snapshot}]}) as never,
		onSnapshot: (listener: (node: string, snapshot: Snapshot) => void) => {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		next(checkpoints: readonly Checkpoint[]) {
			snapshot = {checkpoints: {checkpoints}} as unknown as Snapshot;
			for (const listener of listeners) listener('node1', snapshot);
		},
	};
}

describe('awaitNodeSave', () => {
	const old = ckpt(300, 'unknown', SENT - 60_000);
	// Completed 400 ms before the send: the agent had scanned it before it sent, the viewer's snapshot not yet.
	const periodic = ckpt(600, 'unknown', SENT - 400);
	const answer = ckpt(715, 'manual', SENT + 30, "after traintop's SIGUSR1 at 10:00:00");

	it('a periodic save just before the signal, new to the viewer, is not taken for the one asked', async () => {
		const fleet = fakeFleet([old]);
		const outcome = awaitNodeSave(fleet, 'node1', SENT, 'manual', 60_000);
		fleet.next([old, periodic]);
		fleet.next([old, periodic, answer]);
		expect(await outcome).toEqual({checkpoint: answer, attributed: true, note: null});
	});

	it('with no answer by the timeout, that periodic save is named as what came instead', async () => {
		const fleet = fakeFleet([old]);
		const outcome = awaitNodeSave(fleet, 'node1', SENT, 'manual', 50);
		fleet.next([old, periodic]);
		expect(await outcome).toMatchObject({checkpoint: periodic, attributed: false});
	});

	it('an answer already in the snapshot when the reply came is taken at once', async () => {
		const fleet = fakeFleet([old, periodic, answer]);
		expect(await awaitNodeSave(fleet, 'node1', SENT, 'manual', 60_000)).toEqual({
			checkpoint: answer,
			attributed: true,
			note: null,
		});
	});

	it('a raw signal the agent was not told the kind of: an unknown save may be it', async () => {
		const fleet = fakeFleet([old]);
		const outcome = awaitNodeSave(fleet, 'node1', SENT, 'manual', 60_000, false);
		fleet.next([old, periodic]);
		expect(await outcome).toMatchObject({
			checkpoint: periodic,
			attributed: false,
			note: 'next checkpoint, may be periodic',
		});
	});
});

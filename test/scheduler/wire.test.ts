import {describe, expect, test} from 'vitest';
import {fullSnapshot, type WireSnapshot, wireSnapshot} from '../../src/agent/wire-snapshot.js';
import type {Snapshot} from '../../src/core/types.js';
import {slurmState} from '../../src/slurm/scheduler-state.js';
import {slurmOk} from '../helpers/slurm-job.js';

// The scheduler's state on the agent protocol: the neutral part as `scheduler` (an addition), SLURM's own view under
// the `slurm` key as before the seam, so that a reader of `slurm` reads what it always read, and an older agent's
// `slurm` alone still gives the new reader its scheduler state.

const T = 1_800_000_000_000;
const view = slurmOk(T);
const base = {time: T, host: 'n', tick: 1, ranks: null, checkpoints: null, gpuProcesses: null} as unknown as Snapshot;
const recent = {recentAlerts: [], recentEvents: []};

describe('the scheduler on the wire', () => {
	test('SLURM: its view under `slurm` as before, the neutral part under `scheduler`, once per change', () => {
		const snapshot = {...base, scheduler: slurmState(view)};
		const wire = JSON.parse(JSON.stringify(wireSnapshot(snapshot, null))) as Record<string, unknown>;
		expect(wire.slurm).toEqual(view);
		expect(wire.scheduler).toMatchObject({kind: 'slurm', status: 'ok', jobId: '16', job: {restarts: 0}});
		expect(wire.scheduler).not.toHaveProperty('detail');
		expect(fullSnapshot(wire as WireSnapshot, null, recent).scheduler).toEqual(snapshot.scheduler);
		// Unchanged since the last: neither key is sent, and the receiver keeps what it had.
		const again = wireSnapshot({...snapshot, tick: 2}, snapshot) as Record<string, unknown>;
		expect(again).not.toHaveProperty('slurm');
		expect(again).not.toHaveProperty('scheduler');
		expect(fullSnapshot(again as WireSnapshot, snapshot, recent).scheduler).toBe(snapshot.scheduler);
	});

	test("an older agent's `slurm` alone gives the scheduler state", () => {
		const older = JSON.parse(JSON.stringify({...base, slurm: view})) as WireSnapshot;
		expect(fullSnapshot(older, null, recent).scheduler).toEqual(slurmState(view, '16'));
	});
});

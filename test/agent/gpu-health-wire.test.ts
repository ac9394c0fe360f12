import {afterAll, describe, expect, test} from 'vitest';
import {parseAgentMessage} from '../../src/agent/protocol.js';
import {fullSnapshot, type WireSnapshot, wireSnapshot} from '../../src/agent/wire-snapshot.js';
import type {GpuState, Snapshot} from '../../src/core/types.js';
import {removeTempDirs} from '../helpers/fake-nvidia-smi/harness.js';
import {h200Readings, h200Variant} from '../helpers/h200-health.js';
import {snapshotOf} from '../ui/fleet/fleet-fixtures.js';

// A GPU's health on the agent stream: inside each GPU reading, as the node's reader made it (the H200 recording with
// its ECC count changed to 3, through the real parser: test/helpers/h200-health.ts). Additive: an agent older than
// health sends readings without it and stays valid; a `throttle` the views could not read is refused, naming where.

afterAll(removeTempDirs);

const RECENT = {recentAlerts: [], recentEvents: []};
const NOW = 1_795_000_000_000;

const gpus = h200Readings(h200Variant('ecc.errors.uncorrected.volatile.total', '3'), 10);
const gpu: GpuState = {status: 'ok', gpus, sampledAt: NOW, warning: null};

const line = (snapshot: Snapshot | WireSnapshot): string => JSON.stringify({kind: 'snapshot', host: 'node1', snapshot});

function received(wire: WireSnapshot): Snapshot {
	const parsed = parseAgentMessage(line(wire));
	if (!parsed.ok) throw new Error(parsed.error);
	if (parsed.value.kind !== 'snapshot') throw new Error('not a snapshot');
	return fullSnapshot(parsed.value.snapshot, null, RECENT);
}

describe('GPU health on the agent stream', () => {
	test('carried inside each reading, as the reader made it', () => {
		const got = received(wireSnapshot(snapshotOf('node1', NOW, {gpu}), null));
		expect(got.gpu.status === 'ok' && got.gpu.gpus[0]!.health).toEqual(gpus[0]!.health);
		expect(gpus[0]!.health?.eccUncorrected).toBe(3);
		expect(gpus[0]!.health?.throttle).toEqual(['sw_power_cap']);
	});

	test('an older agent sends readings without health: valid, and none is made up', () => {
		const older: GpuState = {...gpu, gpus: gpus.map(({health: _h, ...reading}) => reading)};
		const got = received(wireSnapshot(snapshotOf('node1', NOW, {gpu: older}), null));
		expect(got.gpu.status === 'ok' && 'health' in got.gpu.gpus[0]!).toBe(false);
	});

	test('a throttle list the views could not read is refused, naming where', () => {
		const bad = {...gpu, gpus: [{...gpus[0]!, health: {...gpus[0]!.health!, throttle: 5}}]} as unknown as GpuState;
		const parsed = parseAgentMessage(line(wireSnapshot(snapshotOf('node1', NOW, {gpu: bad}), null)));
		expect(parsed).toMatchObject({ok: false});
		expect(JSON.stringify(parsed)).toContain('at snapshot.gpu.gpus[0].health.throttle: null or an array of strings');
	});
});

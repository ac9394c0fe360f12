import {describe, expect, test} from 'vitest';
import {parseAgentMessage} from '../../src/agent/protocol.js';
import {fullSnapshot, type WireSnapshot, wireSnapshot} from '../../src/agent/wire-snapshot.js';
import type {GpuMemoryUnseen, HostConsumers} from '../../src/core/memory-types.js';
import type {Snapshot} from '../../src/core/types.js';
import {GpuUnseenLines} from '../../src/headless/gpu-unseen-lines.js';
import {HostConsumersLines} from '../../src/headless/host-consumers-lines.js';
import type {Print} from '../../src/headless/print.js';
import {NOW} from '../helpers/checkpoint-data.js';
import {snapshotOf} from '../ui/fleet/fleet-fixtures.js';

// GPU memory nobody can see and the host's top consumers on the agent stream (slow parts: sent when the reader's object
// is new: a new process table that says something new; a re-read every 10 s while short) and in the headless view.

const MIB = 1024 ** 2;
const unseen: GpuMemoryUnseen = {
	pidNamespace: true,
	gpus: [{index: 0, uuid: 'GPU-0', unaccountedBytes: 1188 * MIB, processes: []}],
};
const sent = (snapshot: Snapshot, previous: Snapshot | null): WireSnapshot =>
	JSON.parse(JSON.stringify(wireSnapshot(snapshot, previous)));
const RECENT = {recentAlerts: [], recentEvents: []};

describe('on the agent stream', () => {
	const first = snapshotOf('node1', NOW, {gpuUnseen: unseen});

	test('sent once, left out while the same object, carried over by the reader', () => {
		const got1 = fullSnapshot(sent(first, null), null, RECENT);
		expect(got1.gpuUnseen).toEqual(unseen);
		const wire2 = sent({...first, time: NOW + 1000, tick: 2}, first);
		expect('gpuUnseen' in wire2).toBe(false);
		expect(fullSnapshot(wire2, got1, RECENT).gpuUnseen).toBe(got1.gpuUnseen);
		const {gpuUnseen: _u, ...older} = sent(first, null);
		expect(fullSnapshot(older as WireSnapshot, null, RECENT).gpuUnseen ?? null).toBeNull();
	});

	test('as sent, it is accepted; out of shape is refused, naming where', () => {
		const both = sent(snapshotOf('node1', NOW, {gpuUnseen: unseen, hostConsumers: consumers(NOW, [4242])}), null);
		expect(parseAgentMessage(JSON.stringify({kind: 'snapshot', host: 'node1', snapshot: both}))).toMatchObject({
			ok: true,
		});
		const wrong = sent(
			snapshotOf('node1', NOW, {
				gpuUnseen: {
					pidNamespace: true,
					gpus: [{index: 0, uuid: null, unaccountedBytes: 0, processes: [{pid: 1, usedBytes: 1, reason: 'lost'}]}],
				} as unknown as GpuMemoryUnseen,
			}),
			null,
		);
		const parsed = parseAgentMessage(JSON.stringify({kind: 'snapshot', host: 'node1', snapshot: wrong}));
		expect(parsed).toMatchObject({ok: false});
		expect(JSON.stringify(parsed)).toContain('snapshot.gpuUnseen.gpus[0].processes[0]');
	});
});

describe('in the headless view', () => {
	test('a line per change, with --json an object; the same object again prints nothing', () => {
		const notes: string[] = [];
		const records: unknown[] = [];
		const print: Print = {
			json: true,
			note: t => notes.push(t),
			err: () => {},
			out: () => {},
			record: r => records.push(r),
		};
		const lines = new GpuUnseenLines(print, 'gpu7');
		const at = (t: number, u: GpuMemoryUnseen | null) => lines.update(snapshotOf('gpu7', t, {gpuUnseen: u}));
		at(NOW, unseen);
		at(NOW + 1000, unseen);
		at(NOW + 2000, {...unseen}); // a new object saying the same
		expect(notes).toHaveLength(1);
		expect(notes[0]).toMatch(
			/ gpu7 GPU memory: 1\.2 GiB on GPU0 held by processes not visible here \(PID namespace\)$/,
		);
		expect(records).toEqual([
			{
				event: 'gpu_unseen',
				time: new Date(NOW).toISOString(),
				host: 'gpu7',
				pid_namespace: true,
				tolerance_bytes: 256 * MIB,
				gpus: [{index: 0, uuid: 'GPU-0', unaccounted_bytes: 1188 * MIB, processes: []}],
			},
		]);
		at(NOW + 3000, {pidNamespace: true, gpus: []});
		expect(notes.at(-1)).toMatch(/ gpu7 GPU memory: nothing unseen any more$/);
	});
});

const consumers = (sampledAt: number, top: number[]): HostConsumers => ({
	sampledAt,
	scanned: 300,
	top: top.map(pid => ({pid, user: 'nobody', cmd: `python3 hog-${pid}.py`, pssBytes: 400 * MIB, rssBytes: 401 * MIB})),
});

describe("the host's top consumers", () => {
	test('a slow part on the wire; out of shape is refused', () => {
		const first = snapshotOf('node1', NOW, {hostConsumers: consumers(NOW, [4242])});
		const got = fullSnapshot(sent(first, null), null, RECENT);
		expect(got.hostConsumers).toEqual(first.hostConsumers);
		const wire2 = sent({...first, time: NOW + 1000, tick: 2}, first);
		expect('hostConsumers' in wire2).toBe(false);
		expect(fullSnapshot(wire2, got, RECENT).hostConsumers).toBe(got.hostConsumers);
		const wrong = sent(
			snapshotOf('node1', NOW, {hostConsumers: {sampledAt: NOW, scanned: 1, top: [{pid: 1, user: 7}]} as never}),
			null,
		);
		expect(
			JSON.stringify(parseAgentMessage(JSON.stringify({kind: 'snapshot', host: 'node1', snapshot: wrong}))),
		).toContain('snapshot.hostConsumers.top[0]');
	});

	test('headless: a line and an event when the largest changes while short, not at each re-read', () => {
		const notes: string[] = [];
		const records: {event: string; top: {pid: number}[]}[] = [];
		const print: Print = {
			json: true,
			note: t => notes.push(t),
			err: () => {},
			out: () => {},
			record: r => records.push(r as never),
		};
		const lines = new HostConsumersLines(print, null);
		const at = (t: number, c: HostConsumers | null) => lines.update(snapshotOf('n', t, {hostConsumers: c}));
		at(NOW, null);
		at(NOW + 1000, consumers(NOW + 1000, [4242, 77]));
		at(NOW + 11_000, consumers(NOW + 11_000, [4242]));
		at(NOW + 21_000, consumers(NOW + 21_000, [77, 4242]));
		at(NOW + 22_000, null);
		at(NOW + 23_000, consumers(NOW + 23_000, [77]));
		expect(records.map(r => r.top.map(c => c.pid))).toEqual([[4242, 77], [77, 4242], [77]]);
		expect(notes[0]).toMatch(
			/ RAM short; largest not the job's: 400 MiB nobody python3 hog-4242\.py \(pid 4242\), 400 MiB nobody python3 hog-77\.py \(pid 77\)$/,
		);
	});
});

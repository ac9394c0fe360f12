import {describe, expect, test} from 'vitest';
import {parseAgentMessage} from '../../src/agent/protocol.js';
import {fullSnapshot, type WireSnapshot, wireSnapshot} from '../../src/agent/wire-snapshot.js';
import {checkedWireValue} from '../../src/agent/wire-values.js';
import type {Readiness} from '../../src/core/readiness-types.js';
import type {Snapshot} from '../../src/core/types.js';
import {NOW} from '../helpers/checkpoint-data.js';
import {snapshotOf} from '../ui/fleet/fleet-fixtures.js';
import {twoJobs} from '../ui/fixtures.js';

// The readiness verdicts on the agent stream: a slow part, sent when the Monitor's array is a new object (it keeps the
// same one while nothing changed, core/job-readiness.ts), carried over by the reader otherwise; an older agent sends
// none, and a value no clock can hold is refused with the message.

function verdict(job: string, extra: Partial<Readiness> = {}): Readiness {
	return {
		job,
		verdict: 'at-risk',
		signal: 'SIGTERM',
		reasons: [
			{code: 'handlers', effect: 'fact', signal: 'SIGTERM', count: 2},
			{code: 'save-over-lead', effect: 'at-risk', seconds: 40, limitS: 30, name: 'ckpt_step40.pt'},
		],
		saveS: {p50: 38, max: 40, samples: 3, slowest: 'ckpt_step40.pt'},
		leadS: 30,
		leadFrom: 'grace',
		lastSaveAt: NOW - 60_000,
		maxWorkAtRiskS: 1800,
		...extra,
	};
}

/** A wire snapshot as the reader gets it: through JSON. */
const sent = (snapshot: Snapshot, previous: Snapshot | null): WireSnapshot =>
	JSON.parse(JSON.stringify(wireSnapshot(snapshot, previous)));

const RECENT = {recentAlerts: [], recentEvents: []};

describe('readiness on the wire', () => {
	const readiness: readonly Readiness[] = [verdict('torchrun:4200')];
	const first = snapshotOf('node1', NOW, {ranks: twoJobs(), readiness});

	test('sent on the first snapshot, left out while the array is the same object, carried over by the reader', () => {
		const wire1 = sent(first, null);
		expect(wire1.readiness).toEqual(readiness);
		const got1 = fullSnapshot(wire1, null, RECENT);
		expect(got1.readiness).toEqual(readiness);

		const second: Snapshot = {...first, time: NOW + 1000, tick: 2};
		const wire2 = sent(second, first);
		expect('readiness' in wire2).toBe(false);
		const got2 = fullSnapshot(wire2, got1, RECENT);
		// The reader's own array, carried over as it was.
		expect(got2.readiness).toBe(got1.readiness);
	});

	test('sent again when it changes, and the reader takes the new one', () => {
		const got1 = fullSnapshot(sent(first, null), null, RECENT);
		const changed = [verdict('torchrun:4200', {verdict: 'ready', reasons: [], leadS: 120})];
		const second: Snapshot = {...first, time: NOW + 1000, tick: 2, readiness: changed};
		const wire2 = sent(second, first);
		expect(wire2.readiness).toEqual(changed);
		expect(fullSnapshot(wire2, got1, RECENT).readiness).toEqual(changed);
		// Every job's verdict gone (its jobs ended) is news too: an empty array, not a carried-over one.
		const third: Snapshot = {...second, time: NOW + 2000, tick: 3, readiness: []};
		expect(fullSnapshot(sent(third, second), got1, RECENT).readiness).toEqual([]);
	});

	test('an older agent’s snapshot without readiness gives none, not a verdict made up', () => {
		const {readiness: _, ...older} = sent(first, null);
		expect(fullSnapshot(older as WireSnapshot, null, RECENT).readiness).toEqual([]);
	});

	test('a lastSaveAt no clock holds is refused by the value check, naming where', () => {
		const wire = sent({...first, readiness: [verdict('torchrun:4200', {lastSaveAt: 1e300})]}, null);
		expect(checkedWireValue(wire)).toEqual({
			ok: false,
			error: 'readiness[0].lastSaveAt = 1e+300 is not a time (epoch ms)',
		});
		const parsed = parseAgentMessage(JSON.stringify({kind: 'snapshot', host: 'node1', snapshot: wire}));
		expect(parsed).toMatchObject({ok: false, invalid: true});
		// A good one passes as it is.
		expect(checkedWireValue(sent(first, null))).toMatchObject({ok: true});
	});

	test('a checkpoint name carrying an escape sequence is made printable', () => {
		const named = verdict('torchrun:4200', {
			saveS: {p50: 38, max: 40, samples: 3, slowest: 'ckpt\u001b]0;PWNED\u0007'},
		});
		const checked = checkedWireValue(sent({...first, readiness: [named]}, null));
		expect(checked.ok).toBe(true);
		const value = checked.ok ? (checked.value as WireSnapshot) : null;
		expect(value?.readiness?.[0]?.saveS?.slowest).toBe('ckpt\\e]0;PWNED\\x07');
	});
});

import {describe, expect, test} from 'vitest';
import {parseAgentMessage} from '../../src/agent/protocol.js';
import {wireSnapshot} from '../../src/agent/wire-snapshot.js';
import {snapshotOf} from '../ui/fleet/fleet-fixtures.js';

// A snapshot line's shape, checked by hand (agent/snapshot-shape.ts): a real wire snapshot parses as itself, each
// field a view reads first is named when it is missing or of the wrong type, and nothing else the line carries at
// its top level comes through.

const line = (value: object): string => JSON.stringify(value);
const wire = wireSnapshot(snapshotOf('gpu2', 1_795_000_000_000), null);
const message = {kind: 'snapshot', host: 'gpu2', snapshot: wire};

describe('a snapshot message', () => {
	test('as an agent writes it: parsed whole, its snapshot the same values', () => {
		expect(parseAgentMessage(line(message))).toEqual({ok: true, value: JSON.parse(line(message))});
	});

	test('keys beside kind, host and snapshot are not kept', () => {
		const parsed = parseAgentMessage(line({...message, extra: 'x'}));
		expect(parsed.ok && Object.keys(parsed.value)).toEqual(['kind', 'host', 'snapshot']);
	});

	test.each([
		[{host: ''}, 'at host: a non-empty string'],
		[{snapshot: [1]}, 'at snapshot: an object'],
		[{snapshot: {...wire, time: 'now'}}, 'at snapshot.time: a finite number'],
		[{snapshot: {...wire, host: 7}}, 'at snapshot.host: a non-empty string'],
		[{snapshot: {...wire, tick: '1'}}, 'at snapshot.tick: an integer'],
		[{snapshot: {...wire, metrics: null}}, 'at snapshot.metrics: an object'],
		[{snapshot: {...wire, gpu: {}}}, 'at snapshot.gpu.status: a string'],
		[{snapshot: {...wire, newAlerts: {}}}, 'at snapshot.newAlerts: an array'],
		[{snapshot: {...wire, events: undefined}}, 'at snapshot.events: an array'],
		// Each job's readiness, a slow part the views read without looking: its shape, when it is there.
		[{snapshot: {...wire, readiness: 5}}, 'at snapshot.readiness: an array'],
		[
			{snapshot: {...wire, readiness: [{verdict: 'ready', reasons: []}]}},
			'at snapshot.readiness[0].job: a non-empty string',
		],
		[
			{snapshot: {...wire, readiness: [{job: 'j', verdict: 'fine', reasons: []}]}},
			'at snapshot.readiness[0].verdict: ready, at-risk, not-ready or unknown',
		],
		[
			{snapshot: {...wire, readiness: [{job: 'j', verdict: 'ready', reasons: [1]}]}},
			'at snapshot.readiness[0].reasons: an array of objects',
		],
	])('%j: not a message, the field named', (fields, why) => {
		expect(parseAgentMessage(line({...message, ...fields}))).toEqual({ok: false, error: `not an agent message ${why}`});
	});

	test('a line that is JSON but no object is refused, not thrown on', () => {
		for (const text of ['null', '5', '"snapshot"', '[]']) expect(parseAgentMessage(text).ok).toBe(false);
	});
});

import {describe, expect, it} from 'vitest';
import {parseAgentMessage} from '../../src/agent/protocol.js';
import {checkedWireValue} from '../../src/agent/wire-values.js';

// Every value an agent sends, before any view: strings (keys too) printable, numbers finite and in range.

const ESC = '\u001b]0;PWN\u0007\u001b[2J';

describe('checkedWireValue', () => {
	it('makes every string and key printable, and keeps an object that needed nothing as it is', () => {
		const clean = {a: 1, b: ['x', {c: null}]};
		expect(checkedWireValue(clean)).toEqual({ok: true, value: clean});
		expect((checkedWireValue(clean) as {value: unknown}).value).toBe(clean);
		const dirty = {[`ram${ESC}`]: {value: 3}, jobs: [{id: `j${ESC}`, state: `S${ESC}`}]};
		expect(checkedWireValue(dirty)).toEqual({
			ok: true,
			value: {
				'ram\\e]0;PWN\\x07\\e[2J': {value: 3},
				jobs: [{id: 'j\\e]0;PWN\\x07\\e[2J', state: 'S\\e]0;PWN\\x07\\e[2J'}],
			},
		});
	});

	it.each([
		[{snapshot: {time: 1e300}}, 'snapshot.time = 1e+300 is not a time (epoch ms)'],
		[{snapshot: {time: -1}}, 'snapshot.time = -1 is not a time (epoch ms)'],
		[{ranks: [{pid: 1.5}]}, 'ranks[0].pid = 1.5 is not a count'],
		[{ranks: [{rank: -3}]}, 'ranks[0].rank = -3 is not a count'],
		[{gpu: {memoryPercent: 1e12}}, 'gpu.memoryPercent = 1000000000000 is not a percentage'],
		[{disk: {freeBytes: 1e300}}, 'disk.freeBytes = 1e+300 is out of range'],
	])('%j: refused, the value named by its path', (value, error) => {
		expect(checkedWireValue(value)).toEqual({ok: false, error});
	});

	it('JSON numbers past a double (1e400) are Infinity: refused', () => {
		const parsed = parseAgentMessage('{"kind":"error","host":"n1","message":"x","extra":1e400}');
		expect(parsed).toMatchObject({ok: false, invalid: true});
		if (!parsed.ok) expect(parsed.error).toMatch(/extra is not a finite number/);
	});

	it('nesting past 24 levels is refused (a snapshot is 10 deep)', () => {
		let deep: unknown = 1;
		for (let i = 0; i < 30; i++) deep = [deep];
		const checked = checkedWireValue(deep);
		expect(checked.ok).toBe(false);
	});

	it('a message whose strings carry escapes parses with them printable', () => {
		const parsed = parseAgentMessage(JSON.stringify({kind: 'error', host: `n1${ESC}`, message: `bad${ESC}`}));
		expect(parsed).toEqual({
			ok: true,
			value: {kind: 'error', host: 'n1\\e]0;PWN\\x07\\e[2J', message: 'bad\\e]0;PWN\\x07\\e[2J'},
		});
	});
});

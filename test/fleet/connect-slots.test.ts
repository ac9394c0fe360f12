import {describe, expect, it} from 'vitest';
import {ConnectSlots} from '../../src/fleet/connect-slots.js';

// The connections being made at once: a slot each until hello or end, the rest in turn.

describe('ConnectSlots', () => {
	it('32 by default; the 33rd waits and gets the first slot freed, first come first served', () => {
		const slots = new ConnectSlots<number>();
		const started = Array.from({length: 40}, (_, i) => i).filter(link => slots.take(link));
		expect(started).toEqual(Array.from({length: 32}, (_, i) => i));
		expect(slots.making(32)).toBe(false);
		expect(slots.done(5)).toBe(32);
		expect(slots.making(32)).toBe(true);
		expect(slots.done(5)).toBeNull();
		expect(slots.done(0)).toBe(33);
	});

	it('a link asked twice waits once; nothing waiting is started after clear()', () => {
		const slots = new ConnectSlots<string>(1);
		expect(slots.take('a')).toBe(true);
		expect(slots.take('b')).toBe(false);
		expect(slots.take('b')).toBe(false);
		expect(slots.done('a')).toBe('b');
		expect(slots.done('b')).toBeNull();
		expect(slots.take('c')).toBe(true);
		expect(slots.take('d')).toBe(false);
		slots.clear();
		expect(slots.done('c')).toBeNull();
	});
});

import {describe, expect, it} from 'vitest';
import {nextWindow, windowLabel, windowStart} from '../../../src/ui/history/window.js';
import {INITIAL_STATE, type KeyContext, reduce} from '../../../src/ui/state.js';
import {keyContext} from '../key-context.js';

const context: KeyContext = keyContext([], {now: 0});

describe('the history window', () => {
	it('w cycles 5 minutes → the last hour → the whole run → 5 minutes, from the main screen only', () => {
		const press = (state: typeof INITIAL_STATE) => reduce(state, {type: 'input', input: 'w', key: {}, context});
		const seen = [INITIAL_STATE.window];
		let state = INITIAL_STATE;
		for (let i = 0; i < 3; i++) {
			state = press(state);
			seen.push(state.window);
		}
		expect(seen).toEqual(['5m', '1h', 'run', '5m']);
		expect(seen.map(windowLabel)).toEqual(['last 5 min', 'last hour', 'whole run', 'last 5 min']);
		// In help, w is not a key of the main screen: the window stays.
		const inHelp = {...INITIAL_STATE, mode: 'help' as const};
		expect(press(inHelp).window).toBe('5m');
		expect(nextWindow('run')).toBe('5m');
	});

	it('starts 5 min or an hour back, or at the first sample for the whole run', () => {
		const now = 10_000_000;
		expect(windowStart('5m', now, now - 60_000)).toBe(now - 300_000);
		expect(windowStart('1h', now, now - 60_000)).toBe(now - 3_600_000);
		expect(windowStart('run', now, now - 60_000)).toBe(now - 60_000);
		// Before any sample (or the first one this instant) the window is a second wide, never empty.
		expect(windowStart('run', now, null)).toBe(now - 1000);
		expect(windowStart('run', now, now)).toBe(now - 1000);
	});
});

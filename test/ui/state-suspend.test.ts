import {describe, expect, test} from 'vitest';
import {barHints, helpEntries, type KeyInfo, type Mode, resolveKey} from '../../src/ui/keymap.js';
import {INITIAL_STATE, type KeyContext, reduce, type UiEvent, type UiState} from '../../src/ui/state.js';
import {keyContext} from './key-context.js';

// Ctrl-Z in the reducer: in raw mode it arrives as a key (Ink: input 'z', ctrl), and in every mode it asks for
// the suspend effect and nothing else: no quit, no mode change (after `fg` the user is where they were).

const ctx: KeyContext = keyContext([101, 102]);

const KEYS: Readonly<Record<string, readonly [string, KeyInfo]>> = {
	'ctrl-z': ['z', {ctrl: true}],
	s: ['s', {}],
	y: ['y', {}],
	a: ['a', {}],
	'?': ['?', {}],
	enter: ['', {return: true}],
};

const press = (name: string, state: UiState, context: KeyContext = ctx): UiState => {
	const [input, key] = KEYS[name]!;
	return reduce(state, {type: 'input', input, key, context});
};
const taken = (state: UiState): UiState =>
	reduce(state, {type: 'effects-taken', count: state.effects.length} satisfies UiEvent);

/** Each mode, and the keys that open it from the main screen (its effects taken). */
const OPENED_BY: Readonly<Record<Mode, readonly string[]>> = {
	main: [],
	help: ['?'],
	confirm: ['s'],
	result: ['s', 'y'],
	analysis: ['a'],
	detail: ['enter'],
};

describe('Ctrl-Z', () => {
	for (const [mode, keys] of Object.entries(OPENED_BY) as [Mode, readonly string[]][]) {
		test(`in ${mode}: the suspend effect alone, the screen as it was`, () => {
			const before = taken(keys.reduce((state, name) => press(name, state), INITIAL_STATE));
			expect(before.mode).toBe(mode);
			const after = press('ctrl-z', before);
			expect(after.effects).toEqual([{kind: 'suspend'}]);
			// Everything else (the mode, an open confirm's target, the cursor, a result) stays.
			expect({...after, effects: []}).toEqual(before);
			expect(resolveKey('z', {ctrl: true}, mode, true)).toBe('suspend');
		});
	}

	test('pressed twice, two suspends; never a quit', () => {
		const twice = press('ctrl-z', press('ctrl-z', INITIAL_STATE));
		expect(twice.effects).toEqual([{kind: 'suspend'}, {kind: 'suspend'}]);
		expect(twice.mode).toBe('main');
	});

	test('a plain z is no key', () => {
		expect(resolveKey('z', {}, 'main', false)).toBeNull();
	});

	test('help lists it, with --readonly too; the key bar does not', () => {
		for (const readonly of [false, true]) {
			expect(helpEntries(readonly)).toContainEqual({
				keys: 'Ctrl-Z',
				description: 'suspend to the shell (fg brings traintop back)',
			});
			for (const mode of Object.keys(OPENED_BY) as Mode[])
				expect(barHints(mode, readonly).map(h => h.key)).not.toContain('Ctrl-Z');
		}
	});
});

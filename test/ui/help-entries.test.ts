import {describe, expect, test} from 'vitest';
import {helpEntries, KEYMAP} from '../../src/ui/keymap.js';

// The help lists each key once, with every meaning it has in the modes shown (Enter opens a rank's detail, closes
// help or a result, presses a confirm's button).

describe('helpEntries', () => {
	for (const fleet of [false, true]) {
		for (const readonly of [false, true]) {
			test(`${fleet ? 'many nodes' : 'one node'}${readonly ? ', --readonly' : ''}: one row per key, every meaning listed`, () => {
				const entries = helpEntries(readonly, fleet);
				const keys = entries.map(entry => entry.keys);
				expect(new Set(keys).size).toBe(keys.length);
				// Every meaning of the keymap shown here is listed: in its key's row, or (Esc's in a confirm, the same words
				// as Esc q's) in the row that already says it.
				for (const binding of KEYMAP) {
					if ((binding.fleet && !fleet) || (readonly && binding.acts)) continue;
					const row = entries.find(entry => entry.keys === binding.keys);
					const said = row?.description.includes(binding.description) ?? false;
					expect(said || entries.some(entry => entry.description === binding.description), binding.description).toBe(
						true,
					);
				}
			});
		}
	}

	test('Enter: its meanings in one row, in the keymap’s order', () => {
		const enter = helpEntries(false).filter(entry => entry.keys === 'Enter');
		expect(enter).toHaveLength(1);
		expect(enter[0]!.description).toBe(
			KEYMAP.filter(binding => binding.keys === 'Enter' && !binding.fleet)
				.map(binding => binding.description)
				.join('; '),
		);
		expect(helpEntries(false, true).filter(entry => entry.keys === 'Enter')).toHaveLength(1);
		expect(helpEntries(false, true).filter(entry => entry.keys === 'o')).toHaveLength(1);
	});
});

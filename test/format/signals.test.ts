import {expect, test} from 'vitest';
import type {SignalState} from '../../src/core/types.js';
import {SIGNAL_LEGEND, signalMark, signalName} from '../../src/format/signals.js';

const state = (extra: Partial<SignalState>): SignalState => ({
	disposition: 'default',
	blocked: false,
	pending: false,
	terminatesByDefault: true,
	...extra,
});

test('one mark per disposition, with B and P appended', () => {
	expect(signalMark(state({disposition: 'handled'}))).toBe('✓');
	expect(signalMark(state({disposition: 'ignored'}))).toBe('ign');
	expect(signalMark(state({}))).toBe('✗');
	expect(signalMark(state({terminatesByDefault: false}))).toBe('-');
	expect(signalMark(state({disposition: 'handled', blocked: true, pending: true}))).toBe('✓BP');
	expect(signalMark(state({pending: true}))).toBe('✗P');
});

test('the legend explains every mark signalMark writes', () => {
	for (const mark of ['✓', '✗', 'ign', '-', 'B', 'P']) expect(SIGNAL_LEGEND).toContain(`${mark} `);
});

test('signalName drops the SIG prefix only', () => {
	expect(signalName('SIGUSR1')).toBe('USR1');
	expect(signalName('TERM')).toBe('TERM');
	expect(signalName('SIGSIG')).toBe('SIG');
});

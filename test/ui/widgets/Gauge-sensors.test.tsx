// A GPU gauge's sensors — `util 100%  59°C 632/700 W` at the end of its line — as the width allows: each part whole or
// not there at all, never cut mid-word, the power first to go, then the temperature, then the utilisation; the bar,
// the value, the level and the headroom stay. An unknown value (N/A) is a blank, never 0.

import {afterEach, describe, expect, test} from 'vitest';
import {cleanup} from 'ink-testing-library';
import Gauge, {type Props} from '../../../src/ui/widgets/Gauge.js';
import {OPTIONAL_PARTS, planGauge, type OptionalPart} from '../../../src/ui/widgets/gauge-plan.js';
import {expectFits, GIB, renderOnTerminal} from '../fixtures.js';

afterEach(cleanup);

/** The H100 under load in the recorded capture: 100 %, 59 °C, 631.95 of 700 W. */
const loaded: Props = {
	label: 'GPU0',
	percent: 95,
	level: 'critical',
	threshold: 90,
	peak: 97,
	headroomBytes: -4 * GIB,
	usedBytes: 76 * GIB,
	totalBytes: 80 * GIB,
	utilizationPercent: 100,
	temperatureC: 59,
	powerDrawW: 631.95,
	powerLimitW: 700,
	width: 200,
};

function lineAt(props: Props, width: number): string {
	const {lastFrame} = renderOnTerminal(<Gauge {...props} width={width} />, width);
	const [line] = expectFits(lastFrame(), width, 1);
	return line!;
}

describe('GPU sensors on a gauge line', () => {
	test('all three at the end of a wide line, after the memory parts', () => {
		const line = lineAt(loaded, 200);
		expect(line).toMatch(
			/95\.0% CRIT {2}76\.0 GiB\/80\.0 GiB {2}peak {2}97\.0% {2}4\.0 GiB over 90% +util 100% {2}59°C 632\/700 W$/,
		);
	});

	test('a narrowing line drops whole parts, never a piece of one: power, then temperature, then utilisation', () => {
		const seen = new Set<string>();
		for (let width = 40; width <= 200; width++) {
			const line = lineAt(loaded, width);
			const has = {
				util: line.includes('util 100%'),
				temp: line.includes('59°C'),
				power: line.includes('632/700 W'),
			};
			// Whole or absent: no stray piece of any of them.
			if (!has.util) expect(line).not.toMatch(/util|u$|ut$|uti$/);
			if (!has.temp) expect(line).not.toContain('°');
			if (!has.power) expect(line).not.toMatch(/632|\/700| W$/);
			// Dropped in order: power needs temperature, temperature needs utilisation.
			if (has.power) expect(has.temp).toBe(true);
			if (has.temp) expect(has.util).toBe(true);
			// What matters most is always there: bar, value, level, and the headroom once the bar has its minimum.
			expect(line).toMatch(/^GPU0 [█░┊]+ {2}95\.0% CRIT/);
			if (width >= 60) expect(line).toContain('4.0 GiB over 90%');
			seen.add(`${has.util}${has.temp}${has.power}`);
		}
		// Every stage shows up on the way: none, util, util + temp, all three.
		expect(seen).toEqual(new Set(['falsefalsefalse', 'truefalsefalse', 'truetruefalse', 'truetruetrue']));
	});

	test('80 columns (the compact screen): utilisation only; 120: all three, in place of GiB used/total', () => {
		expect(lineAt(loaded, 80)).toMatch(/4\.0 GiB over 90% +util 100%$/);
		const wide = lineAt({...loaded, history: [90, 95], sparklineWidth: 20}, 120);
		expect(wide).toMatch(/util 100% {2}59°C 632\/700 W$/);
		expect(wide).not.toContain('GiB/');
	});

	test('N/A values leave their columns blank: no 0, no °C, no W', () => {
		const unknown = lineAt({...loaded, utilizationPercent: null, temperatureC: null, powerDrawW: null}, 200);
		expect(unknown).toMatch(/4\.0 GiB over 90%$/);
		expect(unknown).not.toMatch(/util|°C| W/);
		// A limit without a draw says nothing; a draw without a limit stands alone.
		expect(lineAt({...loaded, powerDrawW: null}, 200)).toMatch(/util 100% {2}59°C$/);
		expect(lineAt({...loaded, powerLimitW: null}, 200)).toMatch(/util 100% {2}59°C 632 W$/);
		// MIG: utilisation [N/A], the rest known: the temperature keeps its column.
		const mig = lineAt({...loaded, utilizationPercent: null, temperatureC: 53, powerDrawW: 433.78}, 200);
		expect(mig).toMatch(/4\.0 GiB over 90% +53°C 434\/700 W$/);
		expect(mig.indexOf('53°C')).toBe(lineAt(loaded, 200).indexOf('59°C'));
	});

	test('gauges with the same sensor columns line up, whatever their values', () => {
		const a = lineAt(loaded, 160);
		const b = lineAt({...loaded, utilizationPercent: 7, temperatureC: 45, powerDrawW: 97.43, powerLimitW: 250}, 160);
		expect(a.indexOf('°C')).toBe(b.indexOf('°C'));
		expect(a.indexOf('util')).toBe(b.indexOf('util'));
		expect(b).toMatch(/util {3}7% {2}45°C 97\/250 W$/);
	});
});

describe('the plan of the sensor parts', () => {
	const sensors = new Set<OptionalPart>(['headroom', 'peak', 'sparkline', 'utilization', 'temperature', 'power']);

	test('after headroom, peak and sparkline, before usage; a memory gauge (the default) has none of them', () => {
		expect([...planGauge(200, 4, 20, new Set([...sensors, 'usage'])).parts]).toEqual([
			'headroom',
			'peak',
			'sparkline',
			'utilization',
			'temperature',
			'power',
			'usage',
		]);
		expect([...planGauge(120, 4, 20, new Set([...sensors, 'usage'])).parts]).not.toContain('usage');
		expect([...planGauge(200, 4, 20).parts]).toEqual(['headroom', 'peak', 'sparkline', 'usage']);
	});

	test('bar plus parts and their gaps never exceed the width', () => {
		for (let width = 17; width <= 220; width++) {
			const plan = planGauge(width, 4, 20, sensors);
			const parts = [...plan.parts].reduce(
				(sum, p) => sum + OPTIONAL_PARTS[p].gap + (p === 'sparkline' ? 20 : OPTIONAL_PARTS[p].width),
				0,
			);
			expect(4 + 1 + 1 + 6 + 1 + 4 + plan.barWidth + parts).toBeLessThanOrEqual(Math.max(width, 18));
		}
	});
});

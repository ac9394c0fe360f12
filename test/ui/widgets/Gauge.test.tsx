import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import Gauge from '../../../src/ui/widgets/Gauge.js';
import {gaugeBaseWidth, MARK} from '../../../src/ui/widgets/gauge-plan.js';
import {expectFits, GIB} from '../fixtures.js';

afterEach(cleanup);

describe('Gauge', () => {
	test('the threshold mark sits at its column of the bar', () => {
		// Label "RAM" in 4 columns, then a space: the bar starts at column 5. With no optional
		// parts, a width of base + 20 leaves a 20-cell bar: 85 % of it is column 17.
		const width = gaugeBaseWidth(4) + 20;
		const {lastFrame} = render(
			<Gauge label="RAM" labelWidth={4} percent={40} level="ok" threshold={85} width={width} />,
		);
		const [line] = expectFits(lastFrame(), width, 1);
		expect(line!.indexOf(MARK)).toBe(5 + 17);
		expect(line!.slice(5, 25)).toBe('████████░░░░░░░░░┊░░');
	});

	test.each([
		['ok', 40, 'ok'],
		['warn', 80, 'WARN'],
		['critical', 91, 'CRIT'],
	] as const)('level %s is written out (no colour needed)', (level, percent, word) => {
		const {lastFrame} = render(<Gauge label="GPU0" percent={percent} level={level} threshold={90} width={60} />);
		expect(lastFrame()).toContain(`${percent.toFixed(1)}% ${word}`);
	});

	test('peak, headroom to the threshold and usage when the width allows', () => {
		const {lastFrame} = render(
			<Gauge
				label="RAM"
				percent={72}
				level="ok"
				threshold={85}
				peak={80.25}
				headroomBytes={8.32 * GIB}
				usedBytes={46.08 * GIB}
				totalBytes={64 * GIB}
				width={100}
			/>,
		);
		const [line] = expectFits(lastFrame(), 100, 1);
		expect(line).toContain('peak  80.3%');
		expect(line).toContain('8.3 GiB to 85%');
		expect(line).toContain('46.1 GiB/64.0 GiB');
	});

	test('over the threshold the headroom says by how much', () => {
		const {lastFrame} = render(
			<Gauge label="GPU0" percent={95} level="critical" threshold={90} headroomBytes={-4 * GIB} width={80} />,
		);
		expect(lastFrame()).toContain('4.0 GiB over 90%');
	});

	test('unknown value: n/a and an empty bar', () => {
		const {lastFrame} = render(<Gauge label="GPU0" percent={null} level="ok" threshold={90} width={40} />);
		expect(lastFrame()).toContain('n/a');
		expect(lastFrame()).not.toContain('█');
	});

	test('the sparkline is drawn when there is room, and dropped on a narrow line', () => {
		const gauge = {
			label: 'RAM',
			percent: 72,
			level: 'ok',
			threshold: 85,
			peak: 80,
			headroomBytes: GIB,
			history: [0, 50, 100],
			sparklineWidth: 6,
		} as const;
		const wide = render(<Gauge {...gauge} width={120} />);
		expect(wide.lastFrame()).toMatch(/ {3}▁▅█$/);
		const narrow = render(<Gauge {...gauge} width={70} />);
		expect(narrow.lastFrame()).not.toMatch(/[▁▅]/);
		expectFits(narrow.lastFrame(), 70, 1);
	});

	test('gauges of the same width line up, whatever their values (unknown ones included)', () => {
		const a = render(
			<Gauge
				label="RAM"
				labelWidth={4}
				percent={5}
				level="ok"
				threshold={85}
				width={90}
				peak={5}
				headroomBytes={null}
			/>,
		);
		const b = render(
			<Gauge
				label="GPU1"
				labelWidth={4}
				percent={99}
				level="critical"
				threshold={90}
				width={90}
				peak={null}
				headroomBytes={-GIB}
			/>,
		);
		const markA = a.lastFrame()!.lastIndexOf('░');
		const markB = b.lastFrame()!.lastIndexOf('█');
		expect(markA).toBe(markB);
		expect(a.lastFrame()!.indexOf('%')).toBe(b.lastFrame()!.indexOf('%'));
	});

	test('never wider than its width', () => {
		for (const width of [10, 20, 30, 45, 60, 99]) {
			const {lastFrame} = render(
				<Gauge
					label="GPU10"
					percent={100}
					level="critical"
					threshold={90}
					peak={100}
					headroomBytes={-1023 * 1024 ** 2}
					usedBytes={GIB}
					totalBytes={GIB}
					history={[1, 2]}
					sparklineWidth={20}
					width={width}
				/>,
			);
			expectFits(lastFrame(), width, 1);
		}
	});
});

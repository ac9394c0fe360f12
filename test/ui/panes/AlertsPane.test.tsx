import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import AlertsPane from '../../../src/ui/panes/AlertsPane.js';
import {localTime} from '../../../src/format/time.js';
import {alert, expectFits, frameLines, NOW} from '../fixtures.js';

afterEach(cleanup);

// Oldest first, as snapshot.recentAlerts keeps them.
const alerts = [
	alert(60 * 30, 'ram', 'ok', 'warn', 78, 85), // yesterday, 30 h ago
	alert(10, 'gpu0', 'ok', 'critical', 91.2),
	alert(5, 'gpu0', 'critical', 'ok', 40),
];

describe('AlertsPane', () => {
	test('newest first, each with its local time, direction and level written out', () => {
		const {lastFrame} = render(<AlertsPane alerts={alerts} now={NOW} width={80} height={5} compact />);
		const lines = expectFits(lastFrame(), 80, 5);
		expect(lines).toEqual([
			'ALERTS 3 level changes',
			`${localTime(NOW - 300_000).slice(11)} ▼ ok   gpu0 40.0%  was CRIT`,
			`${localTime(NOW - 600_000).slice(11)} ▲ CRIT gpu0 91.2%  was ok`,
			// Not today: the date too.
			`${localTime(NOW - 1_800 * 60_000)} ▲ WARN ram 78.0%  was ok`,
		]);
	});

	test('the wide form adds the threshold', () => {
		const {lastFrame} = render(<AlertsPane alerts={alerts} now={NOW} width={100} height={5} />);
		expect(frameLines(lastFrame())[2]).toMatch(/▲ CRIT gpu0 91\.2% {2}was ok · threshold 90%$/);
	});

	test('no alerts yet', () => {
		const {lastFrame} = render(<AlertsPane alerts={[]} now={NOW} width={80} height={5} />);
		expect(frameLines(lastFrame())).toEqual(['ALERTS none since start']);
	});

	test('more alerts than rows: the newest, and the title says so', () => {
		const many = Array.from({length: 50}, (_, i) => alert(50 - i, `gpu${i % 8}`, 'ok', 'warn', 80 + (i % 10)));
		const {lastFrame} = render(<AlertsPane alerts={many} now={NOW} width={80} height={4} />);
		const lines = expectFits(lastFrame(), 80, 4);
		expect(lines[0]).toBe('ALERTS 50 level changes, newest 3');
		expect(lines[1]).toContain('gpu1 89.0%'); // the 50th: i = 49
	});

	test('a single line: the newest change goes on the title line', () => {
		const {lastFrame} = render(<AlertsPane alerts={alerts} now={NOW} width={80} height={1} compact />);
		expect(expectFits(lastFrame(), 80, 1)).toEqual([
			`ALERTS 3 level changes · latest ${localTime(NOW - 300_000).slice(11)} ▼ ok   gpu0 40.0%  was CRIT`,
		]);
	});

	test('every height from 0 to 8 and narrow widths are respected', () => {
		for (const width of [20, 40, 60, 80]) {
			for (let height = 0; height <= 8; height++) {
				const {lastFrame, unmount} = render(
					<AlertsPane alerts={alerts} now={NOW} width={width} height={height} compact={width < 70} />,
				);
				expectFits(lastFrame(), width, height);
				unmount();
			}
		}
	});
});

import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import AlertsPane from '../../../src/ui/panes/AlertsPane.js';
import {localTime} from '../../../src/format/time.js';
import type {JobEvent} from '../../../src/core/types.js';
import {alert, expectFits, frameLines, NOW} from '../fixtures.js';

afterEach(cleanup);

/** A job event `minutesAgo` before NOW. */
function event(
	minutesAgo: number,
	level: JobEvent['level'],
	text: string,
	kind: JobEvent['kind'] = 'job-ended',
): JobEvent {
	return {time: NOW - minutesAgo * 60_000, kind, job: 'torchrun:4200', rank: null, pid: null, level, text};
}

const clock = (minutesAgo: number) => localTime(NOW - minutesAgo * 60_000).slice(11);

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

	describe('with job events', () => {
		// Oldest first, as snapshot.recentEvents keeps them; between and after the level changes in time.
		const events = [
			event(7, 'warn', 'rank 1 (pid 4202) of torchrun:4200 stopped (SIGSTOP, SIGTSTP or a debugger)', 'rank-stopped'),
			event(2, 'critical', 'job torchrun:4200 ended, exit 1'),
		];

		test('merged with the level changes by time, newest first, each with its level word', () => {
			const {lastFrame} = render(
				<AlertsPane alerts={alerts} events={events} now={NOW} width={100} height={7} compact />,
			);
			expect(expectFits(lastFrame(), 100, 7)).toEqual([
				'ALERTS 3 level changes, 2 events',
				`${clock(2)} • CRIT job torchrun:4200 ended, exit 1`,
				`${clock(5)} ▼ ok   gpu0 40.0%  was CRIT`,
				`${clock(7)} • WARN rank 1 (pid 4202) of torchrun:4200 stopped (SIGSTOP, SIGTSTP or a debugger)`,
				`${clock(10)} ▲ CRIT gpu0 91.2%  was ok`,
				`${localTime(NOW - 1_800 * 60_000)} ▲ WARN ram 78.0%  was ok`,
			]);
		});

		test('events alone; a save seen is not an alert (the checkpoints pane counts it), a save judged WARN is', () => {
			const saved = event(1, 'ok', 'saved checkpoint_step_1600 (periodic, step 1600, 512 MiB)', 'save-seen');
			const {lastFrame, rerender} = render(<AlertsPane alerts={[]} events={[saved]} now={NOW} width={80} height={3} />);
			expect(expectFits(lastFrame(), 80, 3)).toEqual(['ALERTS none since start']);
			const odd = {...saved, level: 'warn' as const};
			rerender(<AlertsPane alerts={[]} events={[saved, odd]} now={NOW} width={80} height={3} />);
			expect(expectFits(lastFrame(), 80, 3)).toEqual([
				'ALERTS 1 event',
				`${clock(1)} • WARN saved checkpoint_step_1600 (periodic, step 1600, 512 MiB)`,
			]);
		});

		test('more than fits: the newest of both, and the title says so; one line: the newest on the title', () => {
			const {lastFrame, rerender} = render(
				<AlertsPane alerts={alerts} events={events} now={NOW} width={80} height={3} compact />,
			);
			expect(expectFits(lastFrame(), 80, 3)).toEqual([
				'ALERTS 3 level changes, 2 events, newest 2',
				`${clock(2)} • CRIT job torchrun:4200 ended, exit 1`,
				`${clock(5)} ▼ ok   gpu0 40.0%  was CRIT`,
			]);
			rerender(<AlertsPane alerts={alerts} events={events} now={NOW} width={100} height={1} compact />);
			expect(expectFits(lastFrame(), 100, 1)).toEqual([
				`ALERTS 3 level changes, 2 events · latest ${clock(2)} • CRIT job torchrun:4200 ended, exit 1`,
			]);
		});

		test('a level change and an event at the same time: the level change first, as the tick made them', () => {
			const same = [alert(3, 'ram', 'ok', 'critical', 90, 85)];
			const {lastFrame} = render(
				<AlertsPane
					alerts={same}
					events={[event(3, 'warn', 'job torchrun:4200 ended, exit 99')]}
					now={NOW}
					width={80}
					height={3}
					compact
				/>,
			);
			// Newest first: the event, told after the level change of the same tick, is on top.
			expect(frameLines(lastFrame()).slice(1)).toEqual([
				`${clock(3)} • WARN job torchrun:4200 ended, exit 99`,
				`${clock(3)} ▲ CRIT ram 90.0%  was ok`,
			]);
		});

		test('every height from 0 to 8 and narrow widths are respected, long event texts cut', () => {
			const long = [...events, event(1, 'critical', `job ${'x'.repeat(200)} stalled`, 'job-stalled')];
			for (const width of [20, 40, 60, 80]) {
				for (let height = 0; height <= 8; height++) {
					const {lastFrame, unmount} = render(
						<AlertsPane alerts={alerts} events={long} now={NOW} width={width} height={height} compact={width < 70} />,
					);
					expectFits(lastFrame(), width, height);
					unmount();
				}
			}
		});
	});
});

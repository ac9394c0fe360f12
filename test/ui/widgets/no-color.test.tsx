import {afterEach, describe, expect, test, vi} from 'vitest';

// Chalk decides its colour level when it is first imported. FORCE_COLOR=1 (set before any
// import) makes it colour even into the test's fake stdout, so this file can see what traintop
// itself does about NO_COLOR (the vitest config sets NO_COLOR=1 for every test file). Chalk 5
// ignores NO_COLOR, which is why traintop must.
vi.hoisted(() => {
	process.env.FORCE_COLOR = '1';
});

import {cleanup, render} from 'ink-testing-library';
import {ColorContext, colorAllowed} from '../../../src/ui/color.js';
import Gauge from '../../../src/ui/widgets/Gauge.js';
import AlertsPane from '../../../src/ui/panes/AlertsPane.js';
import Confirm from '../../../src/ui/widgets/Confirm.js';
import {Box} from 'ink';
import {alert, NOW} from '../fixtures.js';

afterEach(cleanup);

/** SGR foreground colours: 30–37, 90–97, 38;5;n and 38;2;r;g;b. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is what an ANSI colour starts with.
const FOREGROUND = /\u001B\[(?:3[0-7]|9[0-7]|38;[25];[\d;]+)m/;

describe('colorAllowed (no-color.org)', () => {
	test.each([
		[{}, true],
		[{NO_COLOR: ''}, true],
		[{NO_COLOR: '1'}, false],
		[{NO_COLOR: 'yes'}, false],
	])('%o → %s', (env, allowed) => {
		expect(colorAllowed(env)).toBe(allowed);
	});
});

describe('NO_COLOR', () => {
	const gauge = <Gauge label="GPU0" percent={95} level="critical" threshold={90} width={60} />;

	test('chalk would colour here: FORCE_COLOR=1 took effect', () => {
		const {lastFrame} = render(<ColorContext.Provider value>{gauge}</ColorContext.Provider>);
		expect(lastFrame()).toMatch(FOREGROUND);
		expect(lastFrame()).toContain('\u001B[31m'); // red: critical
	});

	test('with NO_COLOR set (as in this process) widgets draw no colour by default', () => {
		expect(process.env.NO_COLOR).toBe('1');
		const {lastFrame} = render(gauge);
		expect(lastFrame()).not.toMatch(FOREGROUND);
		expect(lastFrame()).toContain('CRIT');
	});

	test('a pane under NO_COLOR still tells the levels apart by word and arrow', () => {
		const alerts = [
			alert(10, 'ram', 'ok', 'warn', 78, 85),
			alert(5, 'gpu0', 'warn', 'critical', 91.2),
			alert(1, 'gpu0', 'critical', 'ok', 40),
		];
		const {lastFrame} = render(
			<ColorContext.Provider value={false}>
				<AlertsPane alerts={alerts} now={NOW} width={80} height={4} />
			</ColorContext.Provider>,
		);
		expect(lastFrame()).not.toMatch(FOREGROUND);
		expect(lastFrame()).toContain('▼ ok');
		expect(lastFrame()).toContain('▲ CRIT');
		expect(lastFrame()).toContain('▲ WARN');
	});

	test('a box over the panes under NO_COLOR: no colour, and its border still marks it off from them', () => {
		const box = (color: boolean) => (
			<ColorContext.Provider value={color}>
				<Box width={80} height={23}>
					<Confirm
						title="Emergency checkpoint?"
						lines={['rank 0  pid 10000']}
						confirmLabel="Send SIGTERM"
						danger
						width={80}
						height={24}
					/>
				</Box>
			</ColorContext.Provider>
		);
		expect(render(box(true)).lastFrame()).toContain('\u001B[31m╭'); // red: a destructive action
		const frame = render(box(false)).lastFrame() ?? '';
		expect(frame).not.toMatch(FOREGROUND);
		// Bold and inverse (the title, the selected button) are not colour: they stay, and are read past here.
		// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is what an SGR sequence starts with.
		const text = frame.replace(/\u001B\[[\d;]*m/g, '');
		expect(text).toMatch(/╭─+╮/);
		expect(text).toMatch(/│ Emergency checkpoint\? +│/);
		expect(text).toMatch(/╰─+╯/);
	});
});

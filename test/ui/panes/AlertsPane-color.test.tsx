import {afterEach, expect, test, vi} from 'vitest';

// Chalk picks its colour level at first import: FORCE_COLOR=1 before any import lets this file see the
// colours the pane asks for (the vitest config sets NO_COLOR for every file; the Provider below allows colour).
vi.hoisted(() => {
	process.env.FORCE_COLOR = '1';
});

import {cleanup, render} from 'ink-testing-library';
import type {JobEvent} from '../../../src/core/types.js';
import {ColorContext} from '../../../src/ui/color.js';
import AlertsPane from '../../../src/ui/panes/AlertsPane.js';
import {frameLines, NOW} from '../fixtures.js';

afterEach(cleanup);

function event(minutesAgo: number, level: JobEvent['level'], text: string): JobEvent {
	return {time: NOW - minutesAgo * 60_000, kind: 'job-ended', job: 'pid:1', rank: null, pid: null, level, text};
}

test("each event's mark and level word in its level's colour", () => {
	const events = [event(3, 'ok', 'job pid:1 ended, exit 0'), event(2, 'warn', 'w'), event(1, 'critical', 'c')];
	const {lastFrame} = render(
		<ColorContext.Provider value>
			<AlertsPane alerts={[]} events={events} now={NOW} width={80} height={4} />
		</ColorContext.Provider>,
	);
	const [, critical, warn, ok] = frameLines(lastFrame());
	expect(critical).toContain('\u001B[31m'); // red
	expect(warn).toContain('\u001B[33m'); // yellow
	expect(ok).toContain('\u001B[32m'); // green
	expect(ok).not.toContain('\u001B[31m');
});

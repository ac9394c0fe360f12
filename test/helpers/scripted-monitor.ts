import {Monitor} from '../../src/core/monitor.js';
import type {MonitorSources} from '../../src/core/monitor-options.js';

// A Monitor as the tests that drive it tick by tick build it (its memory log: test-recorder.ts): the same thresholds (RAM 90 %,
// swap 50 %, GPU 90 %, warn 10 points below, 2 of hysteresis), one sample a second on a clock the test moves.

const rule = (critical: number) => ({critical, warnMargin: 10, hysteresis: 2});

/** The thresholds the Monitor judges by and `--analyze` reads the log with. */
export const TEST_THRESHOLDS = {ram: rule(90), swap: rule(50), gpu: rule(90)};

/** Every metric CRIT at 85 % (the default RAM line), warn 10 points below: for tests that read levels as shipped. */
export const THRESHOLDS_AT_85 = {ram: rule(85), swap: rule(85), gpu: rule(85)};

/** A Monitor of host `n` (or `host`) on `sources`, sampling every second at the times `now` gives. */
export function scriptedMonitor(
	sources: MonitorSources,
	now: () => number,
	{host = 'n', thresholds = TEST_THRESHOLDS}: {host?: string; thresholds?: typeof TEST_THRESHOLDS} = {},
): Monitor {
	return new Monitor({sources, thresholds, intervalMs: 1000, host, now});
}

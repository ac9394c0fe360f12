import {Monitor} from '../../src/core/monitor.js';
import type {MonitorSources} from '../../src/core/monitor-options.js';

// A Monitor as the tests that drive it tick by tick build it (its memory log: test-recorder.ts): the same thresholds (RAM 90 %,
// swap 50 %, GPU 90 %, warn 10 points below, 2 of hysteresis), one sample a second on a clock the test moves.

const rule = (critical: number) => ({critical, warnMargin: 10, hysteresis: 2});

/** The thresholds the Monitor judges by and `--analyze` reads the log with. */
export const TEST_THRESHOLDS = {ram: rule(90), swap: rule(50), gpu: rule(90)};

/** A Monitor of host `n` on `sources`, sampling every second at the times `now` gives. */
export function scriptedMonitor(sources: MonitorSources, now: () => number): Monitor {
	return new Monitor({sources, thresholds: TEST_THRESHOLDS, intervalMs: 1000, host: 'n', now});
}

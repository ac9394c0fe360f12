import React from 'react';
import {cleanup, render} from 'ink-testing-library';
import {afterAll, afterEach, beforeAll, expect, test} from 'vitest';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {thresholdsFrom} from '../../src/config/thresholds.js';
import {Monitor} from '../../src/core/monitor.js';
import {procReader} from '../../src/system/procfs.js';
import {tuiActions} from '../../src/ui/actions.js';
import App from '../../src/ui/app.js';
import {press, untilFrame} from '../helpers/ink.js';
import {ScriptedSources} from '../helpers/snapshots.js';

// No job found: the panes say so, and a signal key says there is nothing to signal instead of
// doing nothing in silence.

let monitor: Monitor;
beforeAll(() => {
	const sources = new ScriptedSources();
	monitor = new Monitor({sources, thresholds: thresholdsFrom(DEFAULT_SETTINGS), intervalMs: 200, host: 'node-7'});
	monitor.start();
});
afterAll(() => monitor.stop());
afterEach(cleanup);

test('s and e with no ranks: a notice on the key bar, no confirm box; no run dir is said too', async () => {
	const {lastFrame, stdin} = render(<App store={monitor} actions={tuiActions({settings: DEFAULT_SETTINGS, proc: procReader(), checkpoints: null, logPath: null})} readonly={false} host="node-7" />);
	const first = await untilFrame(lastFrame, f => f.includes('RANKS'));
	expect(first).toContain('no run dir: pass RUN_DIR to watch checkpoints');
	expect(first).not.toContain('no ranks found: nothing to signal');
	await press(stdin, 's');
	const after = await untilFrame(lastFrame, f => f.includes('no ranks found: nothing to signal'));
	expect(after).not.toContain('Send SIG');
	await press(stdin, 'e');
	expect(lastFrame()).not.toContain('Send SIG');
});

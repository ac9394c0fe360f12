import {cleanup, render} from 'ink-testing-library';
import {afterEach, expect, test} from 'vitest';
import App from '../../src/ui/app.js';
import {press, untilFrame} from '../helpers/ink.js';
import {closeSessions, testSession} from '../helpers/session.js';

// No job found: the panes say so, and a signal key says there is nothing to signal instead of
// doing nothing in silence.

afterEach(async () => {
	cleanup();
	await closeSessions();
});

test('s and e with no ranks: a notice on the key bar, no confirm box; no run dir is said too', async () => {
	// A pattern no process of this machine matches: no ranks, whatever else runs here.
	const session = await testSession({selector: {kind: 'match', pattern: /traintop-no-such-job-[0-9a-f]{32}/}});
	const {lastFrame, stdin} = render(<App session={session} />);
	const first = await untilFrame(lastFrame, f => f.includes('RANKS'));
	expect(first).toContain('no run dir: pass RUN_DIR to watch checkpoints');
	expect(first).not.toContain('no ranks found: nothing to signal');
	await press(stdin, 's');
	const after = await untilFrame(lastFrame, f => f.includes('no ranks found: nothing to signal'));
	expect(after).not.toContain('Send SIG');
	await press(stdin, 'e');
	expect(lastFrame()).not.toContain('Send SIG');
});

import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {cleanup, render} from 'ink-testing-library';
import {afterEach, beforeEach, expect, test} from 'vitest';
import App from '../../src/ui/app.js';
import {press, untilFrame as until} from '../helpers/ink.js';
import {closeSessions, testSession} from '../helpers/session.js';

// The TUI's `a` box reads the run's memory log, which another program or a broken node may have written: its
// `host` and a GPU's name and uuid are drawn with every control character shown as an escape, never sent to the
// terminal as one.

const HOSTILE = '\u001b]0;X\u0007\u001b[2J';
const SHOWN = '\\e]0;X\\x07\\e[2J';

let dir = '';
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-analysis-escapes-'));
});
afterEach(async () => {
	cleanup();
	await closeSessions();
	await rm(dir, {recursive: true, force: true});
});

const record = (i: number) =>
	JSON.stringify({
		timestamp: new Date(Date.UTC(2026, 10, 22, 8, 0, 30 * i)).toISOString(),
		host: `n${HOSTILE}`,
		interval_s: 30,
		samples: 30,
		memory: {total_gb: 64, used_gb: 30, percent: 47, peak_percent: 48, available_gb: 30},
		swap: null,
		gpus: [
			{
				index: 0,
				uuid: `GPU-${HOSTILE}`,
				name: `H${HOSTILE}`,
				memory_used_gb: 40,
				memory_total_gb: 80,
				memory_percent: 50,
				peak_memory_percent: 51,
			},
		],
		alerts: [],
	});

test('a: the host and the GPU name and uuid of the log are shown escaped', async () => {
	const log = path.join(dir, 'traintop-memory.jsonl');
	await writeFile(log, `${[0, 1, 2].map(record).join('\n')}\n`);
	const session = await testSession({
		settings: {log: true, logFile: log, logInterval: 3600},
		selector: {kind: 'match', pattern: /^traintop-analysis-escapes-matches-nothing$/},
	});
	const {lastFrame, stdin, frames} = render(<App session={session} />);
	await until(lastFrame, f => f.includes('RANKS'));
	await press(stdin, 'a');
	const report = await until(lastFrame, f => f.includes('Analysis of this run') && !f.includes('reading the log'));
	expect(report).toContain(`n${SHOWN}`);
	expect(report).toContain(`H${SHOWN}`);
	// Every frame Ink wrote to the terminal, not just the last: no OSC (title), no clear-screen from the log.
	for (const frame of frames) {
		expect(frame).not.toContain('\u001b]');
		expect(frame).not.toContain('\u0007');
		expect(frame).not.toContain('\u001b[2J');
	}
});

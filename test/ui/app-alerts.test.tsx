import {mkdir, mkdtemp, rename, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import React from 'react';
import {Text} from 'ink';
import {cleanup, render} from 'ink-testing-library';
import {afterEach, beforeEach, expect, test} from 'vitest';
import App from '../../src/ui/app.js';
import {pressUntil, untilFrame} from '../helpers/ink.js';
import {closeSessions, testSession} from '../helpers/session.js';
import {gpu, hostMemory, ScriptedSources} from '../helpers/snapshots.js';

// The alerts pane on a job that saves far more often than anything goes wrong: the whole App on a real session (the
// Monitor, the run-dir watcher), RAM and GPU memory scripted, 50 real saves written into the run dir. Saves are not
// alerts: the RAM CRIT stays in sight, the saves are counted on the checkpoints pane, and `[` `]` scroll the alerts.

let dir = '';
const sources = new ScriptedSources();

beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-app-alerts-'));
	await mkdir(path.join(dir, 'checkpoints'));
	sources.memory = hostMemory(97);
	sources.setGpus(gpu(0, 50));
});

afterEach(async () => {
	cleanup();
	await closeSessions();
	await rm(dir, {recursive: true, force: true});
});

/** Renders on a terminal `columns` × `rows` (ink-testing-library's stdout has no rows: the app would take 24). */
function renderSized(tree: React.ReactElement, columns: number, rows: number): ReturnType<typeof render> {
	const instance = render(React.createElement(Text, null, ''));
	Object.defineProperty(instance.stdout, 'columns', {value: columns, configurable: true});
	Object.defineProperty(instance.stdout, 'rows', {value: rows, configurable: true});
	instance.rerender(tree);
	return instance;
}

/** A save as the seed layout's jobs make it: written under `.tmp`, renamed into place, its meta.json inside. */
async function save(step: number): Promise<void> {
	const name = `checkpoint_step_${step}`;
	const tmp = path.join(dir, 'checkpoints', `${name}.tmp`);
	await mkdir(tmp);
	await writeFile(path.join(tmp, 'state.pt'), Buffer.alloc(4096));
	const meta = {step, epoch: 0, kind: 'periodic', time: new Date().toISOString()};
	await writeFile(path.join(tmp, 'meta.json'), JSON.stringify(meta));
	await rename(tmp, path.join(dir, 'checkpoints', name));
}

/** The alerts pane's lines: from its title to the key bar (the last line). */
function alertsPane(frame: string): string[] {
	const lines = frame.split('\n');
	const at = lines.findIndex(line => line.startsWith('ALERTS'));
	return at < 0 ? [] : lines.slice(at, -1);
}

test('a RAM CRIT then 50 saves: the CRIT stays on the alerts pane, no save there, the saves counted on checkpoints; [ ] scroll', async () => {
	const session = await testSession({
		runDir: dir,
		selector: {kind: 'match', pattern: /traintop-no-such-job-[0-9a-f]{32}/},
		sources,
	});
	const {lastFrame, stdin} = renderSized(<App session={session} />, 100, 32);
	// The first scan is done (the run dir is known empty): every checkpoint from now on is a save seen.
	await untilFrame(lastFrame, f => f.includes('no checkpoints yet in') && /ALERTS 1 level change\b/.test(f));
	// Ten GPU level changes after the RAM CRIT, each back to ok by the last: more than the pane has rows for. Each
	// at its own percent, so that every line reads apart from the others.
	for (let i = 0; i < 10; i++) {
		sources.setGpus(gpu(0, i % 2 === 0 ? 91 + i : 40 + i));
		await untilFrame(lastFrame, f => f.includes(`ALERTS ${i + 2} level changes`));
	}
	for (let step = 100; step <= 5000; step += 100) await save(step);
	const frame = await untilFrame(lastFrame, f => /\b50 saves seen\b/.test(f), 30_000);

	const pane = alertsPane(frame);
	// The counts are the level changes alone: no save is an alert.
	expect(pane[0]).toMatch(/^ALERTS 11 level changes, newest \d+, CRIT pinned \(\[ \] scroll\)$/);
	expect(pane[1]).toMatch(/▲ CRIT ram 97\.0% {2}was ok/);
	expect(pane.join('\n')).not.toContain('saved checkpoint_step');
	expect(pane.slice(2).every(line => /gpu0/.test(line))).toBe(true);
	expect(frame).toMatch(/^CHECKPOINTS 50 · last save .* · 50 saves seen · /m);

	// `[`: one entry older; the CRIT stays on the first line. `]`: back to the newest.
	const newest = pane[2];
	const older = alertsPane(
		await pressUntil(stdin, '[', lastFrame, f => /ALERTS 11 level changes, 2–\d+ of 11, CRIT pinned/.test(f)),
	);
	expect(older[1]).toMatch(/▲ CRIT ram 97\.0%/);
	expect(older[2]).toBe(pane[3]);
	expect(older).not.toContain(newest);
	const back = alertsPane(
		await pressUntil(stdin, ']', lastFrame, f => /ALERTS 11 level changes, newest \d+, CRIT pinned/.test(f)),
	);
	expect(back[2]).toBe(newest);
}, 120_000);

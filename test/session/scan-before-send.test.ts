import {randomUUID} from 'node:crypto';
import {copyFileSync, mkdirSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, test} from 'vitest';
import {CheckpointWatcher} from '../../src/checkpoints/watch.js';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {RankSampler} from '../../src/ranks/discover.js';
import {sessionActions} from '../../src/session/actions.js';
import {procReader} from '../../src/system/procfs.js';
import {ROOT} from '../helpers/dist.js';
import {type PythonChild, startPython} from '../helpers/python-child.js';
import {echoOn} from '../helpers/python-signals.js';

// The TUI's s, e and d send through the session's actions, and the run dir's watcher then takes the next save for the
// one asked for. A save completed a moment before the signal whose file event the watcher had not yet acted on (here:
// a watcher that polls once an hour, so it sees only what it is made to scan) was taken for the signal's answer: the
// run dir is now scanned right before the signal goes. Real torch files (torch 1.13, test/fixtures/torch-files), a
// real rank that handles SIGUSR1, the real watcher.

const TORCH_FILE = path.join(ROOT, 'test/fixtures/torch-files/torch113-zip.pt');
const children: PythonChild[] = [];
let dir = '';
let watcher: CheckpointWatcher | null = null;
afterEach(async () => {
	for (const c of children.splice(0)) c.kill();
	await watcher?.stop();
	watcher = null;
	if (dir) rmSync(dir, {recursive: true, force: true});
});

test('a save completed just before the signal, not yet seen by the watcher, is not taken for its answer', async () => {
	dir = mkdtempSync(path.join(tmpdir(), 'traintop-scan-before-send-'));
	const checkpoints = path.join(dir, 'checkpoints');
	mkdirSync(checkpoints);
	const tag = `tt-scan-before-${randomUUID()}`;
	children.push(await startPython(echoOn('SIGUSR1', 'USR1'), {RANK: '0', WORLD_SIZE: '1'}, tag));
	const set = await new RankSampler({
		proc: procReader(),
		selector: {kind: 'match', pattern: new RegExp(tag)},
		host: 'node',
	}).sample();
	expect(set.jobs).toHaveLength(1);
	watcher = new CheckpointWatcher({runDir: dir, keep: null, poll: {intervalMs: 3_600_000}});
	await watcher.start();
	const actions = sessionActions({settings: DEFAULT_SETTINGS, proc: procReader(), checkpoints: watcher, logPath: null});

	// A periodic save lands; the watcher has not scanned since.
	copyFileSync(TORCH_FILE, path.join(checkpoints, 'ckpt_step100.pt'));
	const sentAt = Date.now();
	const results = await actions.send('SIGUSR1', set.jobs[0]!, undefined, 'manual');
	expect(results.map(r => r.outcome)).toEqual(['sent']);
	const outcome = actions.awaitSave!(sentAt, 'manual');
	// The save the signal asked for, after it.
	copyFileSync(TORCH_FILE, path.join(checkpoints, 'ckpt_step101.pt'));
	await watcher.rescan();
	expect((await outcome).checkpoint?.name).toBe('ckpt_step101.pt');
}, 60_000);

// CheckpointWatcher (src/checkpoints/watch.ts) on real temp dirs with its real file watchers (directory watches for
// inotify, chokidar for polling). Most tests inject a tiny scanner of the seed layout's names so they test the
// watcher alone; the last one uses the real scanner on the demo job. How soon the watcher sees a save is measured in bench/watch-latency.mjs, not asserted here: these
// tests wait for the events themselves.

import {existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync} from 'node:fs';
import {readdir, stat} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {EventEmitter} from 'node:events';
import {scanRunDir} from '../../src/checkpoints/scan.js';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {CheckpointWatcher, type CheckpointWatcherOptions} from '../../src/checkpoints/watch.js';
import {checkpointEvents} from '../../src/core/job-events.js';
import {noSaveText} from '../../src/format/checkpoints.js';
import {openRunDirWatcher, type WatchFactory} from '../../src/checkpoints/watch-options.js';
import type {CheckpointIndex, ScannedCheckpoint, ScanResult} from '../../src/core/types.js';
import {startDemoJob, type DemoJob} from '../../src/demo/job.js';
import {until} from '../helpers/until.js';

const NAME = /^checkpoint_step_(\d+)_\d{8}_\d{6}(\.tmp)?$/;
const tempDirs: string[] = [];
const watchers: CheckpointWatcher[] = [];
const jobs: DemoJob[] = [];

afterEach(async () => {
	await Promise.all(jobs.splice(0).map(job => job.stop()));
	await Promise.all(watchers.splice(0).map(w => w.stop()));
	for (const dir of tempDirs.splice(0)) rmSync(dir, {recursive: true, force: true});
});

function runDir(create = true): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'traintop-watch-'));
	tempDirs.push(dir);
	const run = path.join(dir, 'run');
	if (create) mkdirSync(path.join(run, 'checkpoints'), {recursive: true});
	return run;
}

/** Lists `checkpoints/checkpoint_step_<N>_<ts>[.tmp]` dirs; counts its calls. */
function simpleScan(delayMs = 0) {
	const calls = {count: 0};
	const scan = async (dir: string): Promise<ScanResult> => {
		calls.count++;
		if (delayMs > 0) await new Promise(resolve => setTimeout(resolve, delayMs));
		const root = path.join(dir, 'checkpoints');
		const names = await readdir(root).catch(() => [] as string[]);
		const found: ScannedCheckpoint[] = [];
		for (const name of names) {
			const m = NAME.exec(name);
			const s = m && (await stat(path.join(root, name)).catch(() => null));
			if (!m || !s) continue;
			const status = m[2] ? 'partial' : 'complete';
			found.push({
				path: path.join(root, name),
				name,
				layout: 'seed',
				step: Number(m[1]),
				epoch: null,
				time: s.mtimeMs,
				bytes: 4,
				writeS: null,
				status,
				kind: 'periodic',
				loss: null,
				metric: null,
				group: 'seed:checkpoints',
				warnings: [],
			});
		}
		found.sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
		return {runDir: dir, layouts: found.length ? ['seed'] : [], checkpoints: found, groups: [], warnings: []};
	};
	return {scan, calls};
}

/** Every file watcher the watchers under test attached, newest last. */
const fileWatchers: EventEmitter[] = [];
const recordingWatch: WatchFactory = (runDir, poll) => {
	const fileWatcher = openRunDirWatcher(runDir, poll);
	fileWatchers.push(fileWatcher);
	return fileWatcher;
};

async function started(options: Partial<CheckpointWatcherOptions> & {runDir: string}): Promise<CheckpointWatcher> {
	const watcher = new CheckpointWatcher({keep: null, scan: simpleScan().scan, watch: recordingWatch, ...options});
	watchers.push(watcher);
	await watcher.start();
	return watcher;
}

/** Writes `<name>.tmp/state.pt`, then renames it into place (the seed's save). Returns the final name. */
function save(run: string, step: number, mtime?: Date): string {
	const name = `checkpoint_step_${step}_20260101_120000`;
	const temporary = path.join(run, 'checkpoints', `${name}.tmp`);
	mkdirSync(temporary);
	writeFileSync(path.join(temporary, 'state.pt'), 'ckpt');
	if (mtime) utimesSync(temporary, mtime, mtime);
	renameSync(temporary, path.join(run, 'checkpoints', name));
	return name;
}

/** The first index the watcher publishes after this call that holds `name` as a complete checkpoint. */
function seen(watcher: CheckpointWatcher, name: string, timeoutMs = 10_000): Promise<CheckpointIndex> {
	const has = (index: CheckpointIndex | null) =>
		index?.checkpoints.some(c => c.name === name && c.status === 'complete') ?? false;
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`${name} not seen in ${timeoutMs} ms`)), timeoutMs);
		const off = watcher.subscribe(index => {
			if (has(index)) {
				clearTimeout(timer);
				off();
				resolve(index);
			}
		});
	});
}

const stepName = (step: number) => `checkpoint_step_${step}_20260101_120000`;

describe('CheckpointWatcher', () => {
	it('sees a checkpoint renamed into place (inotify)', async () => {
		const run = runDir();
		save(run, 100);
		const watcher = await started({runDir: run});
		expect(watcher.getIndex()?.checkpoints.map(c => c.step)).toEqual([100]);
		const found = seen(watcher, stepName(200));
		save(run, 200);
		expect((await found).checkpoints.map(c => c.step)).toEqual([100, 200]);
		expect(watcher.getIndex()?.checkpoints.map(c => c.step)).toEqual([100, 200]);
	});

	it('sees it in polling mode too', async () => {
		const run = runDir();
		const watcher = await started({runDir: run, poll: {intervalMs: 100}});
		const found = seen(watcher, stepName(300));
		save(run, 300);
		expect((await found).checkpoints.map(c => c.step)).toEqual([300]);
	});

	it('watches a run dir that appears after start', async () => {
		const run = runDir(false);
		const {scan, calls} = simpleScan();
		const watcher = await started({runDir: run, scan, poll: {intervalMs: 100}});
		expect(watcher.getIndex()?.checkpoints).toEqual([]);
		expect(calls.count).toBe(1);
		mkdirSync(path.join(run, 'checkpoints'), {recursive: true});
		// The watcher attaches once it sees the dir, and scans once attached: that second scan is the sign.
		await until(
			() => calls.count,
			count => count >= 2,
			'the scan after the watcher attached to the new run dir',
		);
		const found = seen(watcher, stepName(1));
		save(run, 1);
		expect((await found).checkpoints.map(c => c.step)).toEqual([1]);
	});

	it('until the run dir appears, its index is empty and says it is waited for (not "no RUN_DIR")', async () => {
		const run = runDir(false);
		// The real scan, which fails on a missing dir (the stub would list nothing without failing).
		const watcher = await started({runDir: run, poll: {intervalMs: 100}, scan: scanRunDir});
		expect(watcher.getIndex()).toMatchObject({checkpoints: [], warnings: ['waiting for RUN_DIR to appear']});
		const found = seen(watcher, stepName(5));
		mkdirSync(path.join(run, 'checkpoints'), {recursive: true});
		save(run, 5);
		const index = await found;
		expect(index.checkpoints.map(c => c.step)).toEqual([5]);
		expect(index.warnings).toEqual([]);
	});

	it('while the first scan runs, the index is a stand-in that says so, and its checkpoints are not new after it', async () => {
		const run = runDir();
		save(run, 1);
		save(run, 2);
		// A first scan that takes as long as the test says (a run dir of 100k files: seconds).
		let release = (): void => {};
		const gate = new Promise<void>(resolve => {
			release = resolve;
		});
		const watcher = new CheckpointWatcher({
			runDir: run,
			keep: null,
			scan: async dir => {
				await gate;
				return scanRunDir(dir);
			},
		});
		watchers.push(watcher);
		let startedUp = false;
		const starting = watcher.start().then(() => {
			startedUp = true;
		});
		await new Promise(resolve => setTimeout(resolve, 50));
		expect(startedUp).toBe(false);
		const standIn = watcher.getIndex()!;
		expect(standIn).toMatchObject({scanning: true, checkpoints: [], lastSave: null});
		expect(noSaveText(standIn)).toBe('scanning the run dir…');
		release();
		await starting;
		const scanned = watcher.getIndex()!;
		expect(scanned.scanning).toBeUndefined();
		expect(scanned.checkpoints.map(c => c.step)).toEqual([1, 2]);
		// The two saves were there before: no "saved" event for them, as with no index before.
		expect(checkpointEvents(standIn, scanned, Date.now(), null)).toEqual([]);
		// Against an index that stood for "no run dir yet", they would be new: they were saved since.
		const waiting = {...standIn, scanning: undefined, warnings: ['waiting for RUN_DIR to appear']};
		expect(checkpointEvents(waiting, scanned, Date.now(), null).map(e => e.kind)).toEqual(['save-seen', 'save-seen']);
	});

	it('a save made while the first scan runs is a save: the file watcher heard it', async () => {
		const run = runDir();
		save(run, 1);
		let release = (): void => {};
		const gate = new Promise<void>(resolve => {
			release = resolve;
		});
		let scanning = false;
		const watcher = new CheckpointWatcher({
			runDir: run,
			keep: null,
			watch: recordingWatch,
			scan: async dir => {
				scanning = true;
				await gate;
				return scanRunDir(dir);
			},
		});
		watchers.push(watcher);
		const starting = watcher.start();
		// The scan starts once the file watcher is ready: what is written from now on is heard.
		await until(
			() => scanning,
			on => on,
			'the first scan started',
		);
		const standIn = watcher.getIndex()!;
		const fileWatcher = fileWatchers.at(-1)!;
		const name = `checkpoint_step_2_20260101_120000`;
		// The watcher's own listener runs before this one (added first): when this hears it, the watcher has.
		const heard = new Promise<void>(resolve =>
			fileWatcher.on('all', (_event, file) => file === path.join(run, 'checkpoints', name) && resolve()),
		);
		save(run, 2);
		await heard;
		release();
		await starting;
		const scanned = watcher.getIndex()!;
		expect(scanned.checkpoints.map(c => c.step)).toEqual([1, 2]);
		// Step 1 was there before traintop; step 2 was saved while the first scan ran.
		expect(checkpointEvents(standIn, scanned, Date.now(), null).map(e => [e.kind, e.checkpoint])).toEqual([
			['save-seen', name],
		]);
	});

	it('a job that stops saving goes overdue with no file event: the index follows the clock', async () => {
		const run = runDir();
		// The watcher's clock runs (its rescans are spaced by it) and jumps where the test says.
		let ahead = 0;
		const clock = () => Date.now() + ahead;
		const watcher = await started({runDir: run, now: clock});
		const base = Date.now();
		// Saves of steps 1, 2, 3, 60 s apart (by their mtimes), the last one at `base`, each seen being written.
		for (const step of [1, 2, 3]) {
			const indexed = seen(watcher, stepName(step));
			save(run, step, new Date(base - (3 - step) * 60_000));
			await indexed;
		}
		let now = base;
		const jump = (to: number) => {
			now = to;
			ahead = to - Date.now();
		};
		const first = watcher.getIndex();
		// Every step, at 1/60 step/s: step 4 is due in 60 s, OVERDUE after the margin of half a cadence (30 s).
		expect(first?.cadence).toMatchObject({everySteps: 1, everySeconds: 60, nextStep: 4, learning: null});
		expect(first?.lastSave).toMatchObject({medianIntervalS: 60, overdue: false});
		// The same object while nothing visible changed (the Monitor compares by identity).
		jump(base);
		expect(watcher.getIndex()).toBe(watcher.getIndex());
		jump(base + 89_000);
		expect(watcher.getIndex()?.lastSave).toMatchObject({overdue: false});
		expect(Math.round(watcher.getIndex()!.lastSave!.ageS)).toBe(89);
		jump(base + 91_000);
		expect(watcher.getIndex()?.lastSave).toMatchObject({overdue: true});
		expect(watcher.getIndex()?.checkpoints.map(c => c.step)).toEqual([1, 2, 3]);
		// traintop's own emergency signal: the job is being stopped, not late, from that moment on.
		watcher.noteSignal({signal: 'SIGTERM', expect: 'emergency', at: now, job: null});
		expect(watcher.getIndex()?.lastSave).toMatchObject({overdue: false});
		expect(watcher.getIndex()?.cadence?.suspended).toMatch(/^traintop sent SIGTERM \(emergency\)/);
	});

	it('awaitNewCheckpoint resolves with the new one, never one present before nor one older than sinceMs', async () => {
		const run = runDir();
		save(run, 100); // fresh mtime, inside the slack: excluded only because it is already indexed
		const watcher = await started({runDir: run});
		const since = Date.now();
		const waiting = watcher.awaitNewCheckpoint(since, 10_000);
		const indexed = seen(watcher, stepName(150));
		save(run, 150, new Date(since - 60_000)); // appears after the call, but written a minute before sinceMs
		// The rescan that indexed it has been through awaitNewCheckpoint's check too (before subscribers are told).
		await indexed;
		expect(watcher.getIndex()?.checkpoints.map(c => c.step)).toEqual([100, 150]);
		save(run, 200);
		const found = await waiting;
		expect(found?.step).toBe(200);
		expect(found?.status).toBe('complete');
		expect(found?.retention).toBe('keep');
	});

	it('awaitNewCheckpoint times out with null, not before its timeout', async () => {
		const run = runDir();
		const watcher = await started({runDir: run});
		// Its timer on a fake clock: no new checkpoint can come, and 'not before' needs no stopwatch.
		vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']});
		try {
			let result: unknown = 'pending';
			void watcher.awaitNewCheckpoint(Date.now(), 300).then(found => {
				result = found;
			});
			await vi.advanceTimersByTimeAsync(299);
			expect(result).toBe('pending');
			await vi.advanceTimersByTimeAsync(1);
			expect(result).toBeNull();
		} finally {
			vi.useRealTimers();
		}
	});

	it('debounces a burst of events into one rescan', async () => {
		const run = runDir();
		const {scan, calls} = simpleScan();
		const watcher = await started({runDir: run, scan, debounceMs: 200});
		expect(calls.count).toBe(1);
		for (let i = 0; i < 30; i++) writeFileSync(path.join(run, `log_${i}.txt`), 'x');
		await until(
			() => calls.count,
			count => count >= 2,
			'the rescan after the burst',
		);
		// A later event: a checkpoint saved after that rescan. Once the index holds it, every event of the burst (all
		// before the save's) has been handled: the initial scan, one for the burst (two if it straddled the debounce
		// window) and one for the save.
		const found = seen(watcher, stepName(1));
		save(run, 1);
		await found;
		expect(calls.count).toBeLessThanOrEqual(4);
	});

	it('rescan coalesces concurrent calls; subscribers hear only of changes', async () => {
		const run = runDir();
		const {scan, calls} = simpleScan(100);
		const watcher = new CheckpointWatcher({runDir: run, keep: null, scan});
		watchers.push(watcher);
		const heard: CheckpointIndex[] = [];
		const off = watcher.subscribe(index => heard.push(index));
		const results = await Promise.all([watcher.rescan(), watcher.rescan(), watcher.rescan(), watcher.rescan()]);
		expect(calls.count).toBe(2); // the running scan plus one shared follow-up
		expect(results[1]).toBe(results[3]);
		expect(heard).toHaveLength(1); // the follow-up found nothing new
		save(run, 5);
		await watcher.rescan();
		expect(heard).toHaveLength(2);
		off();
		save(run, 6);
		await watcher.rescan();
		expect(heard).toHaveLength(2);
		expect(watcher.getIndex()?.checkpoints).toHaveLength(2);
	});

	it('keeps going after a failed scan and a file-watcher error', async () => {
		const run = runDir();
		const {scan} = simpleScan();
		let fail = true;
		const watcher = await started({
			runDir: run,
			scan: async dir => {
				if (fail) throw new Error('EACCES: permission denied');
				return scan(dir);
			},
		});
		// No checkpoint known, and why: the stand-in of the first scan names the failure (not "no RUN_DIR given").
		expect(watcher.getIndex()).toMatchObject({scanning: true, checkpoints: []});
		expect(noSaveText(watcher.getIndex()!)).toBe('scan failed: EACCES: permission denied');
		expect(String(watcher.lastError)).toMatch(/EACCES/);
		fail = false;
		fileWatchers.at(-1)!.emit('error', new Error('EACCES: unreadable'));
		const found = seen(watcher, stepName(7));
		save(run, 7);
		expect((await found).checkpoints.map(c => c.step)).toEqual([7]);
		expect(watcher.lastError).toBeNull();
	});

	it('stop() closes the watcher, ends pending waits with null, and is idempotent', async () => {
		const run = runDir();
		const {scan, calls} = simpleScan();
		const watcher = await started({runDir: run, scan});
		const waiting = watcher.awaitNewCheckpoint(Date.now(), 10_000);
		await watcher.stop();
		expect(await waiting).toBeNull();
		const count = calls.count;
		// A later event: a second watcher on the same dir, with the same debounce, sees two saves one after the other.
		// The first save's events reach both watchers at once, so by the time the second one has rescanned for the
		// second save, the stopped one, were it still watching, would have rescanned for the first.
		const control = await started({runDir: run});
		const first = seen(control, stepName(9));
		save(run, 9);
		await first;
		const second = seen(control, stepName(10));
		save(run, 10);
		await second;
		expect(calls.count).toBe(count);
		expect(watcher.watching).toBe(false);
		await watcher.stop();
		expect(await watcher.awaitNewCheckpoint(0, 10_000)).toBeNull();
	});
});

const hasScanner = existsSync(new URL('../../src/checkpoints/scan.ts', import.meta.url));

describe.runIf(hasScanner)('CheckpointWatcher with the real scanner', () => {
	it('sees the demo job save a manual checkpoint on SIGUSR1', async () => {
		const run = runDir(false);
		const job = await startDemoJob({
			runDir: run,
			ranks: 2,
			workers: 1,
			stepSeconds: 0.05,
			saveEvery: 0,
			shutdownTimeoutS: 3,
		});
		jobs.push(job);
		const pids = await job.ranksReady();
		const watcher = new CheckpointWatcher({runDir: run, keep: null});
		watchers.push(watcher);
		await watcher.start();
		const since = Date.now();
		const waiting = watcher.awaitNewCheckpoint(since, 15_000);
		process.kill(pids.get(0)!, 'SIGUSR1');
		const found = await waiting;
		expect(found?.kind).toBe('manual');
		expect(found?.status).toBe('complete');
		expect(found?.layout).toBe('seed');
		expect(found!.time).toBeGreaterThanOrEqual(since - 1000);
	});
});

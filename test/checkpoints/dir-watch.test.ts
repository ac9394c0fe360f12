// The cost of watching a large, busy run dir (issue 17), on real dirs with the real inotify watcher: how many inotify
// watches it holds (read from /proc/self/fdinfo, the kernel's own count), that directories made after the start are
// still followed inside, and how often an event storm makes it rescan. bench/rundir.mjs measures CPU and memory.

import {type ChildProcess, spawn} from 'node:child_process';
import {mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {DirectoryWatcher} from '../../src/checkpoints/dir-watch.js';
import {scanRunDir} from '../../src/checkpoints/scan.js';
import {CheckpointWatcher} from '../../src/checkpoints/watch.js';
import type {CheckpointIndex, ScanResult} from '../../src/core/types.js';
import {until} from '../helpers/until.js';

const tempDirs: string[] = [];
const watchers: CheckpointWatcher[] = [];

afterEach(async () => {
	await Promise.all(watchers.splice(0).map(w => w.stop()));
	for (const dir of tempDirs.splice(0)) rmSync(dir, {recursive: true, force: true});
});

function runDir(): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'traintop-dir-watch-'));
	tempDirs.push(dir);
	const run = path.join(dir, 'run');
	mkdirSync(path.join(run, 'checkpoints'), {recursive: true});
	return run;
}

/** The inotify watches this process holds now: one `inotify wd:` line each in /proc/self/fdinfo. */
function inotifyWatches(): number {
	let count = 0;
	for (const fd of readdirSync('/proc/self/fdinfo')) {
		try {
			count += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').match(/^inotify wd:/gm)?.length ?? 0;
		} catch {
			// an fd closed while being read
		}
	}
	return count;
}

/** A Hugging Face Trainer checkpoint: `shards` model files, then trainer_state.json last (unless `finished` is false). */
function hfCheckpoint(run: string, step: number, shards: number, finished = true): string {
	const dir = path.join(run, 'checkpoints', `checkpoint-${step}`);
	mkdirSync(dir);
	for (let i = 0; i < shards; i++) writeFileSync(path.join(dir, `model-${i}.safetensors`), 'x');
	if (finished) writeFileSync(path.join(dir, 'trainer_state.json'), JSON.stringify({global_step: step}));
	return dir;
}

async function started(run: string, scan?: (dir: string) => Promise<ScanResult>, debounceMs?: number) {
	const watcher = new CheckpointWatcher({runDir: run, keep: null, ...(scan ? {scan} : {}), debounceMs});
	watchers.push(watcher);
	await watcher.start();
	return watcher;
}

/** Another process renaming `file` away and back for `ms`, as fast as it can: faster than JS takes inotify's events. */
function renameLoop(file: string, ms: number): ChildProcess {
	const storm = `const {renameSync} = require('node:fs'); const end = Date.now() + ${ms};
		while (Date.now() < end) { renameSync(${JSON.stringify(file)}, ${JSON.stringify(`${file}.tmp`)});
		renameSync(${JSON.stringify(`${file}.tmp`)}, ${JSON.stringify(file)}); }`;
	return spawn(process.execPath, ['-e', storm], {stdio: 'ignore'});
}

/**
 * How many rescans a watcher (10 ms debounce) whose scan does `work` makes for a 3 s rename storm, up to the first one
 * after it. The storm runs in another process: renames in this one would count as the scans' CPU.
 */
async function rescansDuringStorm(work: () => unknown): Promise<number> {
	const run = runDir();
	const file = path.join(run, 'checkpoints', 'shard.bin');
	writeFileSync(file, 'x');
	let scans = 0;
	await started(
		run,
		async dir => {
			scans++;
			await work();
			return {runDir: dir, layouts: [], checkpoints: [], groups: [], warnings: []};
		},
		10,
	);
	const first = scans;
	const storm = renameLoop(file, 3000);
	await new Promise(resolve => storm.once('exit', resolve));
	await until(
		() => scans,
		n => n > first,
		'a rescan after the storm',
	);
	return scans - first;
}

const statusOf = (index: CheckpointIndex | null, name: string) =>
	index?.checkpoints.find(c => c.name === name)?.status ?? 'absent';

describe('watching a large run dir', () => {
	it('holds one inotify watch per directory the scan looks in, none per file', async () => {
		const run = runDir();
		for (let step = 10; step <= 200; step += 10) hfCheckpoint(run, step, 100); // 20 dirs, 2020 files
		mkdirSync(path.join(run, 'samples', 'deep', 'er', 'still'), {recursive: true});
		for (let i = 0; i < 2000; i++) writeFileSync(path.join(run, 'samples', `sample-${i}.png`), 'x');
		const before = inotifyWatches();
		await started(run);
		// run, checkpoints, its 20 checkpoints, and the 4 levels of samples/deep/er/still the search lists; not one per file.
		expect(inotifyWatches() - before).toBe(26);
	});

	it('follows a checkpoint dir made after the start inside: its last file makes it complete', async () => {
		const run = runDir();
		hfCheckpoint(run, 10, 3);
		const watcher = await started(run, scanRunDir);
		expect(statusOf(watcher.getIndex(), 'checkpoint-10')).toBe('complete');
		const dir = hfCheckpoint(run, 20, 3, false);
		await until(
			() => statusOf(watcher.getIndex(), 'checkpoint-20'),
			s => s === 'partial',
			'checkpoint-20 partial',
		);
		writeFileSync(path.join(dir, 'trainer_state.json'), JSON.stringify({global_step: 20}));
		await until(
			() => statusOf(watcher.getIndex(), 'checkpoint-20'),
			s => s === 'complete',
			'checkpoint-20 complete',
		);
	});

	it('spaces the rescans of an event storm by what a scan costs', async () => {
		// A scan of a large run dir that waits 300 ms on the disk. Back to back (10 ms apart) 3 s hold 9 of them;
		// spaced by their own wall time, 5 at most.
		const scans = await rescansDuringStorm(() => new Promise(resolve => setTimeout(resolve, 300)));
		expect(scans).toBeLessThanOrEqual(6);
		expect(scans).toBeGreaterThanOrEqual(3);
	});

	it('spaces the rescans of an event storm by the CPU a scan uses: a tenth of a CPU, not back to back', async () => {
		// A scan that computes for 100 ms of CPU (a large run dir's layouts): spaced by its wall time only, 3 s of
		// renames would hold 3000 / (100 + 100) = 15 of them; by nine times its CPU, 3000 / (100 + 900) = 3. CPU, not
		// wall time: on a loaded machine 100 ms of wall time held as little as 40 ms of CPU, and 7–8 rescans.
		const cpuMs = () => {
			const {user, system} = process.cpuUsage();
			return (user + system) / 1000;
		};
		const scans = await rescansDuringStorm(() => {
			const end = cpuMs() + 100;
			while (cpuMs() < end);
		});
		expect(scans).toBeLessThanOrEqual(5);
		expect(scans).toBeGreaterThanOrEqual(2);
	});

	it('a rename storm from another process neither holds the event loop nor stops the rescans', async () => {
		const run = runDir();
		const file = path.join(run, 'checkpoints', 'shard.bin');
		writeFileSync(file, 'x');
		let scans = 0;
		const countingScan = async (dir: string): Promise<ScanResult> => {
			scans++;
			return {runDir: dir, layouts: [], checkpoints: [], groups: [], warnings: []};
		};
		await started(run, countingScan, 10);
		const first = scans;
		const child = renameLoop(file, 3000);
		let last = performance.now();
		let longestGap = 0;
		const ticker = setInterval(() => {
			longestGap = Math.max(longestGap, performance.now() - last);
			last = performance.now();
		}, 20);
		await new Promise(resolve => child.once('exit', resolve));
		clearInterval(ticker);
		expect(longestGap).toBeLessThan(1000);
		expect(scans - first).toBeGreaterThanOrEqual(2);
	});

	it('holds no inotify watch while a storm has it paused, even when the storm came in the middle of a walk', async () => {
		const run = runDir();
		for (let step = 10; step <= 5000; step += 10) mkdirSync(path.join(run, 'checkpoints', `checkpoint-${step}`));
		const file = path.join(run, 'storm.bin');
		writeFileSync(file, 'x');
		const before = inotifyWatches();
		const watcher = new DirectoryWatcher(run);
		await new Promise(resolve => watcher.once('ready', resolve));
		expect(inotifyWatches() - before).toBe(502);
		// The run dir itself storms: its watch is the walk's first, so the storm pauses the walks that follow early.
		const storm = renameLoop(file, 4000);
		const stormed = new Promise(resolve => storm.once('exit', resolve));
		const heldWhilePaused: number[] = [];
		try {
			for (let walk = 0; walk < 5; walk++) {
				await until(
					() => watcher.paused,
					paused => paused,
					'the storm pauses the watcher',
				);
				heldWhilePaused.push(inotifyWatches() - before);
				await watcher.settle(); // walks again; the storm pauses it again, mid-walk or after
				if (watcher.paused) heldWhilePaused.push(inotifyWatches() - before);
			}
		} finally {
			storm.kill();
			await stormed;
			await watcher.close();
		}
		expect(heldWhilePaused.length).toBeGreaterThanOrEqual(5);
		expect(heldWhilePaused).toEqual(heldWhilePaused.map(() => 0));
	});
});

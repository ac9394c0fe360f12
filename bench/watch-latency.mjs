#!/usr/bin/env node
// Measures how soon CheckpointWatcher sees a checkpoint: the time from rename() of a finished
// `checkpoint_step_<N>_<ts>.tmp` directory into place to the watcher's index holding it as complete — with inotify,
// and with polling (NFS/Lustre/GPFS mode). The real scanner (the seed layout) and the default 200 ms debounce are
// part of what is measured. Like the seed, each save then deletes the oldest checkpoint beyond keep 3.
//
//   npm run build && node bench/watch-latency.mjs
//   node bench/watch-latency.mjs --count 50 --poll-interval 1000
//
// Between saves it waits a random 300–800 ms so renames fall at random points of the poll cycle.

import {existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = path.join(root, 'dist/checkpoints/watch.js');
if (!existsSync(built)) {
	console.error('bench/watch-latency needs a build: npm run build');
	process.exit(2);
}
const {CheckpointWatcher} = await import(pathToFileURL(built).href);
const {Monitor} = await import(pathToFileURL(path.join(root, 'dist/core/monitor.js')).href);

function arg(name, fallback) {
	const i = process.argv.indexOf(name);
	return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const count = arg('--count', 20);
const pollIntervalMs = arg('--poll-interval', 500);
const debounceMs = arg('--debounce', 200);
const keep = 3;
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

/** Nearest-rank percentile of sorted values. */
function percentile(sorted, p) {
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * `through: 'snapshot'` measures up to the Monitor's published snapshot (what the TUI and headless
 * see) instead of the watcher's index, with the Monitor sampling at 1 s: a change is published at
 * once, not at the next tick.
 */
async function measure(label, poll, through = 'index') {
	const base = mkdtempSync(path.join(tmpdir(), 'traintop-watch-bench-'));
	const checkpoints = path.join(base, 'run', 'checkpoints');
	mkdirSync(checkpoints, {recursive: true});
	const watcher = new CheckpointWatcher({runDir: path.join(base, 'run'), keep: null, poll, debounceMs});
	const samples = [];
	const finals = [];
	const monitor =
		through === 'snapshot'
			? new Monitor({
					sources: {
						readMemory: async () => ({ram: {totalBytes: 1, usedBytes: 0, availableBytes: 1, percent: 0}, swap: null}),
						gpu: {
							getState: () => ({status: 'absent', reason: 'bench'}),
							getProcesses: () => ({processes: [], sampledAt: null, error: null}),
						},
						checkpoints: watcher,
					},
					thresholds: {
						ram: {critical: 85, warnMargin: 10, hysteresis: 2},
						swap: {critical: 50, warnMargin: 10, hysteresis: 2},
						gpu: {critical: 90, warnMargin: 10, hysteresis: 2},
					},
					intervalMs: 1000,
					host: 'bench',
				})
			: null;
	const source = monitor
		? {subscribe: listener => monitor.subscribe(snapshot => listener(snapshot.checkpoints))}
		: watcher;
	try {
		await watcher.start();
		monitor?.start();
		await sleep(poll ? poll.intervalMs * 2 : 300);
		for (let i = 1; i <= count; i++) {
			const name = `checkpoint_step_${i * 100}_20260101_${String(120000 + i).padStart(6, '0')}`;
			const temporary = path.join(checkpoints, `${name}.tmp`);
			mkdirSync(temporary);
			writeFileSync(path.join(temporary, 'state.pt'), Buffer.alloc(256 * 1024));
			await sleep(poll ? poll.intervalMs + debounceMs + 100 : debounceMs + 100); // the .tmp is seen first, as in a real save
			const seen = new Promise(resolve => {
				const has = index => index?.checkpoints.some(c => c.name === name && c.status === 'complete');
				const off = source.subscribe(index => {
					if (has(index)) {
						off();
						resolve(performance.now());
					}
				});
			});
			const t0 = performance.now();
			renameSync(temporary, path.join(checkpoints, name));
			const timeout = sleep(10_000).then(() => null);
			const t1 = await Promise.race([seen, timeout]);
			if (t1 === null) throw new Error(`${label}: ${name} not seen within 10 s`);
			samples.push(t1 - t0);
			finals.push(name);
			while (finals.length > keep) rmSync(path.join(checkpoints, finals.shift()), {recursive: true});
			await sleep(300 + Math.random() * 500);
		}
	} finally {
		monitor?.stop();
		await watcher.stop();
		rmSync(base, {recursive: true, force: true});
	}
	const sorted = [...samples].sort((a, b) => a - b);
	return {
		label,
		n: sorted.length,
		min: sorted[0],
		median: percentile(sorted, 50),
		p95: percentile(sorted, 95),
		max: sorted.at(-1),
	};
}

const rows = [
	await measure('inotify', null),
	await measure(`polling ${pollIntervalMs} ms`, {intervalMs: pollIntervalMs}),
	await measure('inotify → snapshot', null, 'snapshot'),
];

const ms = value => `${value.toFixed(0)} ms`;
const header = ['mode', 'renames', 'min', 'median', 'p95', 'max'];
const table = [header, ...rows.map(r => [r.label, String(r.n), ms(r.min), ms(r.median), ms(r.p95), ms(r.max)])];
const widths = header.map((_, i) => Math.max(...table.map(row => row[i].length)));
console.log(`rename() → index holds the checkpoint (→ snapshot: the Monitor, sampling at 1 s, has published it)`);
console.log(`debounce ${debounceMs} ms, real scanner, node ${process.version}\n`);
for (const [i, row] of table.entries()) {
	console.log(row.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join('  '));
	if (i === 0) console.log(widths.map(w => '-'.repeat(w)).join('  '));
}

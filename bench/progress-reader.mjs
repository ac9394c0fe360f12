#!/usr/bin/env node
// What the step signal reader (checkpoints/progress-reader.ts) costs a Monitor tick: one refresh with 3 followed
// files (a Lightning metrics.csv of --rows rows, an HF checkpoint's trainer_state.json named by the index, and a
// --progress-file log), --rounds times: (1) nothing changed (a stat each), (2) the log and the CSV appended to before
// each refresh (a stat each, two bounded reads and parses), and the discovery walk every 10 s of the injected clock.
// Printed: wall µs and CPU µs per refresh, medians of 5 runs.
//
//   npm run build && node bench/progress-reader.mjs [--rounds 2000 --rows 5000]

import {appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {argValue, requireAll} from './lib/proc.mjs';
import {root} from './lib/scenario.mjs';

const rounds = Number(argValue('--rounds', 2000));
const rows = Number(argValue('--rows', 5000));
const dist = file => pathToFileURL(path.join(root, 'dist', file)).href;
requireAll('bench/progress-reader', [['a build (npm run build)', existsSync(path.join(root, 'dist/cli.js'))]]);
const {StepSignalReader} = await import(dist('checkpoints/progress-reader.js'));
const {scanRunDir} = await import(dist('checkpoints/scan.js'));
const {buildIndex} = await import(dist('checkpoints/retention.js'));

const run = mkdtempSync(path.join(tmpdir(), 'traintop-bench-progress-'));
const csv = path.join(run, 'lightning_logs', 'version_0', 'metrics.csv');
mkdirSync(path.dirname(csv), {recursive: true});
writeFileSync(csv, `epoch,step,train_loss\r\n${Array.from({length: rows}, (_, i) => `0,${i},1.0\r\n`).join('')}`);
for (const step of [10, 20]) {
	const dir = path.join(run, 'out', `checkpoint-${step}`);
	mkdirSync(dir, {recursive: true});
	writeFileSync(path.join(dir, 'model.safetensors'), 'x');
	const log = Array.from({length: step / 10}, (_, i) => ({loss: 1, step: (i + 1) * 10}));
	writeFileSync(
		path.join(dir, 'trainer_state.json'),
		`${JSON.stringify({global_step: step, log_history: log}, null, 2)}\n`,
	);
}
const log = path.join(run, 'train.log');
writeFileSync(log, 'step 1\n');
const index = buildIndex(await scanRunDir(run), {keep: null, now: Date.now(), disk: null});

async function timed(appending) {
	let now = Date.now();
	const reader = new StepSignalReader({runDir: run, progressFile: log, now: () => now});
	const first = await reader.refresh(index);
	if (first.length !== 4)
		throw new Error(`expected 4 signals (the checkpoints and 3 files), got ${JSON.stringify(first)}`);
	let step = rows;
	let wallNs = 0n;
	let cpuUs = 0;
	for (let round = 0; round < rounds; round++) {
		now += 1000;
		if (appending) {
			appendFileSync(log, `step ${step}\n`);
			appendFileSync(csv, `0,${step},1.0\r\n`);
			step++;
		}
		// Only the refresh is timed, not the test's own appends.
		const cpu = process.cpuUsage();
		const start = process.hrtime.bigint();
		await reader.refresh(index);
		wallNs += process.hrtime.bigint() - start;
		const used = process.cpuUsage(cpu);
		cpuUs += used.user + used.system;
	}
	return {wallUs: Number(wallNs) / 1000 / rounds, cpuUs: cpuUs / rounds};
}

const median = list => [...list].sort((a, b) => a - b)[list.length >> 1];
for (const appending of [false, true]) {
	const runs = [];
	for (let n = 0; n < 5; n++) runs.push(await timed(appending));
	const what = appending ? 'log and CSV appended each tick' : 'nothing changed';
	console.log(
		`${what}: ${median(runs.map(r => r.wallUs)).toFixed(0)} µs wall, ${median(runs.map(r => r.cpuUs)).toFixed(0)} µs CPU per refresh (3 files, ${rounds} refreshes, 1 s apart on the clock)`,
	);
}
rmSync(run, {recursive: true, force: true});

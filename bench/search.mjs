#!/usr/bin/env node
// What the checkpoint search below the run dir costs `traintop checkpoints RUN` on a run dir of --files files (100k),
// in two shapes:
//   - flat: the files in RUN itself (listed with an lstat each, as before the search), a few subdirectories;
//   - nested: the files in RUN/samples/ (listed by the search, by name only), 10 HF checkpoints in RUN/checkpoints/.
// Each shape is timed for this build, the --baseline build (one from before the search) and a peer,
// `find RUN -maxdepth 4 -type d` (what listing the same directories costs a plain tool), in turn, --runs times each
// (default 5); printed: the median wall time of each and the ratios of the medians.
//
//   npm run build && node bench/search.mjs --baseline /tmp/old/dist/cli.js [--files 100000 --runs 5]

import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {argValue, requireAll} from './lib/proc.mjs';
import {root} from './lib/scenario.mjs';

const files = Number(argValue('--files', 100_000));
const runs = Number(argValue('--runs', 5));
const baseline = argValue('--baseline', null);
const cli = path.join(root, 'dist/cli.js');
requireAll('bench/search', [
	['a build (npm run build)', existsSync(cli)],
	[`the baseline build ${baseline}`, baseline === null || existsSync(baseline)],
	['find', spawnSync('find', ['--version']).status === 0],
]);

const work = mkdtempSync(path.join(tmpdir(), 'traintop-bench-search-'));

function makeTree(name, flatIn) {
	const run = path.join(work, name);
	for (let step = 10; step <= 100; step += 10) {
		const dir = path.join(run, 'checkpoints', `checkpoint-${step}`);
		mkdirSync(dir, {recursive: true});
		writeFileSync(path.join(dir, 'model.safetensors'), 'x');
		writeFileSync(path.join(dir, 'trainer_state.json'), JSON.stringify({global_step: step}));
	}
	for (const dir of ['logs/tb', 'src/pkg', 'outputs/eval']) mkdirSync(path.join(run, dir), {recursive: true});
	const flat = flatIn === '' ? run : path.join(run, flatIn);
	mkdirSync(flat, {recursive: true});
	for (let i = 0; i < files; i++) writeFileSync(path.join(flat, `sample-${i}.png`), 'x');
	return run;
}

/** Wall seconds of one run of `argv`. */
function timed(argv) {
	const started = performance.now();
	const result = spawnSync(argv[0], argv.slice(1), {stdio: 'ignore'});
	if (result.status !== 0) throw new Error(`${argv.join(' ')}: exit ${result.status}`);
	return (performance.now() - started) / 1000;
}

const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

try {
	for (const [name, flatIn] of [
		['flat', ''],
		['nested', 'samples'],
	]) {
		const run = makeTree(name, flatIn);
		const commands = [
			['this build', [process.execPath, cli, 'checkpoints', run]],
			...(baseline === null ? [] : [['baseline', [process.execPath, baseline, 'checkpoints', run]]]),
			['find -maxdepth 4 -type d', ['find', run, '-maxdepth', '4', '-type', 'd']],
		];
		for (const [, argv] of commands) timed(argv); // warm the page cache and the dentries
		const times = commands.map(() => []);
		for (let i = 0; i < runs; i++) for (const [c, [, argv]] of commands.entries()) times[c].push(timed(argv));
		const medians = times.map(median);
		console.log(`${name}: ${files} files in ${flatIn === '' ? 'RUN' : `RUN/${flatIn}`}, median of ${runs}`);
		for (const [c, [label]] of commands.entries()) console.log(`  ${label}: ${fmt(medians[c], 3)} s`);
		for (let c = 1; c < commands.length; c++)
			console.log(`  this build / ${commands[c][0]}: ${fmt(medians[0] / medians[c])}`);
		rmSync(run, {recursive: true, force: true});
	}
} finally {
	rmSync(work, {recursive: true, force: true});
}

#!/usr/bin/env node
// What a large, busy run dir costs traintop (issue 17): `traintop --headless RUN` on a run dir of
//   - RUN/checkpoints/checkpoint-<N>/: --checkpoints Hugging Face Trainer checkpoints of --shards files each (model
//     shards, then trainer_state.json last, as the Trainer writes them): 1000 × 100 = 100k files by default;
//   - RUN/samples/: one flat dir of --flat files (100k: eval samples, a dataset cache) that no layout looks at; with
//     `--flat-in run` they lie in RUN itself instead, where every scan lists and stats them all (issue 26).
// Printed, per build, in one run:
//   - start: the time from spawn to the first status line (stdout, --log-interval 1), and the RSS then; then the time
//     until it settled (a whole second under 5 % CPU: its first scan of the run dir done) and the CPU it used so far;
//   - idle: CPU % and peak RSS over --idle seconds (30) with nothing changing, from when it settled;
//   - storm: CPU % and peak RSS over --storm seconds (60) while a child renames files in a loop (a shard of one
//     checkpoint and a sample, each renamed away and back, as fast as it can);
//   - peer: `du -s RUN` (stats every file, as a person or a cleanup job does), median wall time with no traintop,
//     during idle and during the storm: what traintop's share of the disk and CPU costs a neighbour;
//   - sampling: the longest gap between two status lines (1 s apart when nothing holds the event loop) from the first
//     to the end of the storm, and how many times the GPU reader was said to have stopped answering (a held loop
//     reads as a silent nvidia-smi);
//   - `traintop checkpoints RUN`: its peak RSS and wall time (GNU time).
// The tree is made once and shared by the builds (the storm puts every file back).
//
//   npm run build && npm run bench:rundir
//   node bench/rundir.mjs --baseline /tmp/old/dist/cli.js [--checkpoints 1000 --shards 100 --flat 100000 --flat-in run]

import {spawn, spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {argValue, cpuSeconds, requireAll, sleep, statusKb} from './lib/proc.mjs';
import {fakeGpuEnv, root} from './lib/scenario.mjs';

const checkpoints = Number(argValue('--checkpoints', 1000));
const shards = Number(argValue('--shards', 100));
const flat = Number(argValue('--flat', 100_000));
const idleS = Number(argValue('--idle', 30));
const stormS = Number(argValue('--storm', 60));
const baseline = argValue('--baseline', null);
const flatIn = argValue('--flat-in', 'samples');
const GNU_TIME = '/usr/bin/time';
const cli = path.join(root, 'dist/cli.js');
requireAll('bench/rundir', [
	['a build (npm run build)', existsSync(cli)],
	['du', spawnSync('du', ['--version']).status === 0],
	[`the baseline build ${baseline}`, baseline === null || existsSync(baseline)],
	['--flat-in samples or run', flatIn === 'samples' || flatIn === 'run'],
	[`GNU time (${GNU_TIME})`, existsSync(GNU_TIME)],
]);

const work = mkdtempSync(path.join(tmpdir(), 'traintop-bench-rundir-'));
const runDir = path.join(work, 'run');
const flatDir = flatIn === 'run' ? runDir : path.join(runDir, 'samples');
const shardName = i => `model-${String(i + 1).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}.safetensors`;

function makeTree() {
	const started = performance.now();
	for (let c = 1; c <= checkpoints; c++) {
		const dir = path.join(runDir, 'checkpoints', `checkpoint-${c * 10}`);
		mkdirSync(dir, {recursive: true});
		for (let s = 0; s < shards - 1; s++) writeFileSync(path.join(dir, shardName(s)), 'x');
		writeFileSync(path.join(dir, 'trainer_state.json'), JSON.stringify({global_step: c * 10, epoch: c / 100}));
	}
	mkdirSync(flatDir, {recursive: true});
	for (let i = 0; i < flat; i++) writeFileSync(path.join(flatDir, `sample-${i}.png`), 'x');
	return (performance.now() - started) / 1000;
}

/** The renamer: a shard of checkpoint k and sample k renamed away and back, for `seconds`; prints its count. */
const RENAMER = `
const {renameSync} = require('node:fs');
const [runDir, flatDir, checkpoints, shards, flat, seconds] = process.argv.slice(1);
const shard = s => 'model-' + String(s + 1).padStart(5, '0') + '-of-' + String(shards).padStart(5, '0') + '.safetensors';
const end = Date.now() + Number(seconds) * 1000;
let n = 0;
while (Date.now() < end) {
	const c = (n % Number(checkpoints)) + 1;
	const a = runDir + '/checkpoints/checkpoint-' + c * 10 + '/' + shard(n % (Number(shards) - 1));
	const b = flatDir + '/sample-' + (n % Number(flat)) + '.png';
	for (const file of [a, b]) { renameSync(file, file + '.tmp'); renameSync(file + '.tmp', file); }
	n += 1;
}
console.log(n * 4);
`;

function duSeconds() {
	const started = performance.now();
	spawnSync('du', ['-s', runDir], {stdio: 'ignore'});
	return (performance.now() - started) / 1000;
}

const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** `traintop checkpoints RUN` under GNU time: its peak RSS (MB) and wall time (s). */
function checkpointsCommand(build) {
	const run = spawnSync(GNU_TIME, ['-f', '%M %e', process.execPath, build, 'checkpoints', runDir], {
		encoding: 'utf8',
		stdio: ['ignore', 'ignore', 'pipe'],
	});
	const [kb, seconds] = run.stderr.trim().split('\n').at(-1).split(' ').map(Number);
	return {peakMb: kb / 1024, seconds};
}

/** The longest gap (s) between consecutive times (ms) from `from` on. */
function longestGap(times, from) {
	let longest = 0;
	for (let i = 1; i < times.length; i++) if (times[i - 1] >= from) longest = Math.max(longest, times[i] - times[i - 1]);
	return longest / 1000;
}

/** Runs `du -s` back to back until `until()`; the median wall time. */
async function peerWhile(until) {
	const times = [];
	while (!until()) {
		times.push(duSeconds());
		await sleep(200);
	}
	return times.length === 0 ? Number.NaN : median(times);
}

/** CPU % and peak RSS (MB, sampled every 250 ms) of `pid` over `seconds`, with the peer's median du time. */
async function phase(pid, seconds) {
	const cpu0 = cpuSeconds(pid);
	const t0 = performance.now();
	const end = t0 + seconds * 1000;
	let peakKb = 0;
	const sampler = setInterval(() => {
		peakKb = Math.max(peakKb, statusKb(pid, 'VmRSS') || 0);
	}, 250);
	const peer = await peerWhile(() => performance.now() >= end);
	while (performance.now() < end) await sleep(50);
	clearInterval(sampler);
	const cpu = ((cpuSeconds(pid) - cpu0) / ((performance.now() - t0) / 1000)) * 100;
	return {cpu, peakMb: peakKb / 1024, peer};
}

/**
 * Waits until `pid` has used under 5 % of a CPU for a whole second (its first scan of the run dir is done, even when
 * the status lines started before it): the time since `started` and the CPU seconds used until then.
 */
async function settling(pid, started) {
	for (;;) {
		const cpu0 = cpuSeconds(pid);
		await sleep(1000);
		const cpu1 = cpuSeconds(pid);
		if (cpu1 - cpu0 < 0.05) return {after: (performance.now() - started) / 1000 - 1, cpu: cpu0};
	}
}

async function measure(label, build) {
	const child = spawn(
		process.execPath,
		[build, '--headless', runDir, '--no-log', '--interval', '1', '--log-interval', '1'],
		{
			env: {...process.env, ...fakeGpuEnv()},
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	const started = performance.now();
	let stderr = '';
	let stoppedAnswering = 0;
	child.stderr.on('data', chunk => {
		stderr = (stderr + chunk).slice(-4000);
		stoppedAnswering += String(chunk).match(/stopped answering/g)?.length ?? 0;
	});
	// When each status line came: a held event loop shows as a gap.
	const lines = [];
	let partial = '';
	child.stdout.on('data', chunk => {
		const parts = (partial + chunk).split('\n');
		partial = parts.pop();
		for (const line of parts) if (/^\S+ \S+ {2}ram /.test(line)) lines.push(performance.now());
	});
	// A status line (`2026-… ram 6.0% ok …`), not an event line that may come before it.
	const first = await new Promise((resolve, reject) => {
		let seen = '';
		const look = chunk => {
			seen += chunk;
			if (!/^\S+ \S+ {2}ram /m.test(seen)) return;
			child.stdout.off('data', look);
			resolve((performance.now() - started) / 1000);
		};
		child.stdout.on('data', look);
		child.once('exit', code => reject(new Error(`${label}: traintop exited ${code} before a status line: ${stderr}`)));
	});
	const startMb = statusKb(child.pid, 'VmRSS') / 1024;
	const settled = await settling(child.pid, started);
	const idle = await phase(child.pid, idleS);
	const settledAt = performance.now();
	const renamer = spawn(process.execPath, ['-e', RENAMER, runDir, flatDir, checkpoints, shards, flat, stormS], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let renames = '';
	renamer.stdout.on('data', chunk => {
		renames += chunk;
	});
	const renamerDone = new Promise(resolve => renamer.once('exit', resolve));
	const storm = await phase(child.pid, stormS);
	await renamerDone;
	const hwmMb = statusKb(child.pid, 'VmHWM') / 1024;
	const gaps = {all: longestGap(lines, 0), after: longestGap(lines, settledAt)};
	child.kill('SIGTERM');
	await new Promise(resolve => child.once('exit', resolve));
	const command = checkpointsCommand(build);
	return {
		label,
		first,
		startMb,
		settled,
		idle,
		storm,
		hwmMb,
		renames: Number(renames.trim()),
		gaps,
		stoppedAnswering,
		command,
	};
}

const fmt = (value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

try {
	console.log(
		`bench/rundir: ${checkpoints} checkpoints × ${shards} files + ${flat} files in ${flatIn === 'run' ? 'the run dir itself' : 'a flat dir'}; idle ${idleS} s, storm ${stormS} s`,
	);
	console.log(`  tree made in ${fmt(makeTree())} s in ${runDir}`);
	const alone = [duSeconds(), duSeconds(), duSeconds()];
	console.log(`  peer alone: du -s RUN ${fmt(median(alone), 2)} s (median of 3)`);
	const builds = [...(baseline === null ? [] : [['baseline', baseline]]), ['this build', cli]];
	for (const [label, build] of builds) {
		const r = await measure(label, build);
		console.log(`  ${label} (${build})`);
		console.log(
			`    start: first status line after ${fmt(r.first, 2)} s, RSS ${fmt(r.startMb, 0)} MB; ` +
				`settled (first scan done) after ${fmt(r.settled.after)} s, ${fmt(r.settled.cpu)} s of CPU`,
		);
		console.log(
			`    idle ${idleS} s: CPU ${fmt(r.idle.cpu)} %, peak RSS ${fmt(r.idle.peakMb, 0)} MB; peer du -s ${fmt(r.idle.peer, 2)} s`,
		);
		console.log(
			`    storm ${stormS} s (${r.renames} renames): CPU ${fmt(r.storm.cpu)} %, peak RSS ${fmt(r.storm.peakMb, 0)} MB; ` +
				`peer du -s ${fmt(r.storm.peer, 2)} s; VmHWM ${fmt(r.hwmMb, 0)} MB`,
		);
		console.log(
			`    sampling: longest gap between status lines ${fmt(r.gaps.all)} s (after the first scan ${fmt(r.gaps.after)} s); ` +
				`"stopped answering" ${r.stoppedAnswering} times`,
		);
		console.log(
			`    traintop checkpoints RUN: peak RSS ${fmt(r.command.peakMb, 0)} MB, ${fmt(r.command.seconds, 2)} s`,
		);
	}
} finally {
	rmSync(work, {recursive: true, force: true});
}

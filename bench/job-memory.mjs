#!/usr/bin/env node
// What reading each job's own memory costs traintop (ranks/job-memory.ts), on 8 real python3 ranks that each hold a
// touched numpy array of --mib MiB and fork 4 workers that read it (DataLoader workers sharing their rank's pages):
// the reader runs as the Monitor runs it, right after each rank scan (every 2 s), over --seconds of scans whose times
// are moved on without waiting; the CPU of the reads themselves is measured (process.cpuUsage) and said as a share of
// one core over that time, with the longest single read (how long it holds the event loop). Beside it, in the same
// run, the naive policy: every process's smaps_rollup every 15 s, all in one scan.
//
//   npm run build && node bench/job-memory.mjs [--mib 512] [--seconds 600]

import {spawn} from 'node:child_process';
import {existsSync} from 'node:fs';
import {hostname} from 'node:os';
import path from 'node:path';
import {createInterface} from 'node:readline';
import {pathToFileURL} from 'node:url';
import {argValue, requireAll} from './lib/proc.mjs';
import {root} from './lib/scenario.mjs';

const mib = Number(argValue('--mib', 512));
const seconds = Number(argValue('--seconds', 600));
const RANKS = 8;
const WORKERS = 4;
const SCAN_MS = 2000;
requireAll('bench/job-memory', [['a build (npm run build)', existsSync(path.join(root, 'dist/cli.js'))]]);
const load = file => import(pathToFileURL(path.join(root, 'dist', file)).href);
const {JobMemoryReader} = await load('ranks/job-memory.js');
const {RankSampler} = await load('ranks/discover.js');
const {procReader} = await load('system/procfs.js');

const tag = `tt-bench-jobmem-${process.pid}`;
const script = `
import os, signal, sys, numpy as np
a = np.ones(${mib} * 1024 * 1024 // 8)
for _ in range(${WORKERS}):
    if os.fork() == 0:
        s = float(a.sum())
        signal.pause()
print("ready", flush=True)
signal.pause()
`;
const ranks = [];
for (let rank = 0; rank < RANKS; rank++) {
	const child = spawn('python3', ['-c', script, tag], {
		env: {PATH: process.env.PATH, RANK: String(rank), LOCAL_RANK: String(rank), WORLD_SIZE: String(RANKS)},
		stdio: ['ignore', 'pipe', 'inherit'],
		detached: true,
	});
	ranks.push(child);
}
await Promise.all(
	ranks.map(child => new Promise(resolve => createInterface({input: child.stdout}).once('line', resolve))),
);
try {
	const sampler = new RankSampler({
		proc: procReader(),
		selector: {kind: 'match', pattern: new RegExp(tag)},
		host: hostname(),
	});
	const set = await sampler.sample();
	const processes = set.ranks.reduce((n, r) => n + 1 + r.workers.length, 0);
	console.log(
		`${set.ranks.length} ranks, ${processes} processes, ${mib} MiB array per rank; ${seconds} s of scans every ${SCAN_MS / 1000} s`,
	);
	const run = (name, options) => {
		const reader = new JobMemoryReader(procReader(), options);
		let cpuUs = 0;
		let longestMs = 0;
		let firstMs = 0;
		for (let t = 0; t <= seconds * 1000; t += SCAN_MS) {
			const wall = performance.now();
			const cpu = process.cpuUsage();
			reader.read({...set, sampledAt: set.sampledAt + t});
			const used = process.cpuUsage(cpu);
			cpuUs += used.user + used.system;
			// The first read reads every process's PSS at once (none is known yet): said apart.
			if (t === 0) firstMs = performance.now() - wall;
			else longestMs = Math.max(longestMs, performance.now() - wall);
		}
		// Each rank started apart is a job of its own here: the sums are over all of them.
		const jobs = reader.read({...set, sampledAt: set.sampledAt + seconds * 1000 + SCAN_MS});
		const total = key => jobs.reduce((sum, job) => sum + job[key], 0);
		const GiB = 1024 ** 3;
		console.log(
			`${name.padEnd(40)} ${((cpuUs / 1000 / (seconds * 1000)) * 100).toFixed(3)} % of a core, first read ${firstMs.toFixed(0)} ms, longest after ${longestMs.toFixed(1)} ms, ` +
				`RSS ${(total('rssBytes') / GiB).toFixed(2)} GiB, PSS ${(total('pssBytes') / GiB).toFixed(2)} GiB`,
		);
	};
	run('budgeted (the default)', {});
	run('naive: all every 15 s, in one scan', {
		pss: {cpuShare: Number.POSITIVE_INFINITY, scanMs: Number.POSITIVE_INFINITY},
	});
	run('RSS only (PSS never read again)', {pss: {everyMs: Number.POSITIVE_INFINITY}});
} finally {
	for (const child of ranks) process.kill(-child.pid, 'SIGKILL');
}

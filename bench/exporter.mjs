#!/usr/bin/env node
// What `--listen` costs: two headless traintops of the same build side by side beside the same job, one serving
// /metrics and scraped here every 15 s (as a Prometheus with the default scrape_interval would), the other without
// --listen, for --duration s a round; the budget is +0.3 % of a core for the one with --listen. As the peer in
// the same run, Debian's prometheus-node-exporter (a Go exporter most clusters already run on every node) scraped at
// the same 15 s, when it is installed: its CPU is the comparison figure.
//
//   node bench/exporter.mjs                       # 3 rounds of 120 s
//   node bench/exporter.mjs --duration 60 --rounds 2
//
// The scenario is the budget's (lib/scenario.mjs): the demo job's 8 ranks with 2 DataLoader workers each, a run dir
// of 50 checkpoints, 8 GPUs answered by the fake nvidia-smi; both traintops watch it with --pid at 1 s sampling. Which
// of the two starts first alternates each round (a second one starting beside a warm one finds the page cache and the
// CPU in another state). CPU is read from /proc/PID/stat (utime + stime of the process and its threads, not its
// children: not the fake nvidia-smi) after a 5 s warm-up, so module loading, prom-client's loading and nvidia-smi's
// first sample are not counted; peak RSS is VmHWM (start-up included), RSS is read at the end of each round. Each
// scrape's latency (request to the body's end, on this machine's loopback) and body size are recorded.
//
// Needs a build (npm run build). Optional: prometheus-node-exporter (apt-get install prometheus-node-exporter).

import {spawn} from 'node:child_process';
import {existsSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {argValue, commandExists, cpuSeconds, requireAll, sleep, statusKb} from './lib/proc.mjs';
import {fakeGpuEnv, root, startScenario} from './lib/scenario.mjs';

const cli = path.join(root, 'dist/cli.js');
const durationS = Number(argValue('--duration', '120'));
const rounds = Number(argValue('--rounds', '3'));
const scrapeEveryS = Number(argValue('--scrape-every', '15'));
const warmupS = 5;
const NODE_EXPORTER = 'prometheus-node-exporter';

requireAll('bench/exporter', [
	['a build (npm run build)', existsSync(cli)],
	['--duration of at least one scrape interval', durationS >= scrapeEveryS],
	['--rounds ≥ 1', Number.isInteger(rounds) && rounds >= 1],
]);
const withPeer = commandExists(NODE_EXPORTER);
if (!withPeer) console.log(`(${NODE_EXPORTER} not installed: no peer figure; apt-get install ${NODE_EXPORTER})`);

const work = mkdtempSync(path.join(tmpdir(), 'traintop-bench-exporter-'));
const {runDir, job} = await startScenario(work, {workers: 2});
const live = new Set();

/** A child whose stderr is read (the port line); stdout is not (headless prints a line per tick: discarded). */
function start(label, command, args, env = {}) {
	const child = spawn(command, args, {stdio: ['ignore', 'ignore', 'pipe'], env: {...process.env, ...env}});
	let stderr = '';
	child.stderr.on('data', chunk => {
		stderr = (stderr + chunk.toString()).slice(-8000);
	});
	live.add(child);
	child.once('exit', () => live.delete(child));
	return {label, child, pid: child.pid, stderr: () => stderr};
}

function traintop(label, extra) {
	return start(
		label,
		process.execPath,
		[cli, '--headless', '--interval', '1', '--no-log', '--pid', String(job.launcherPid), runDir, ...extra],
		fakeGpuEnv(),
	);
}

async function waitForLine(subject, pattern, timeoutMs = 60_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const found = pattern.exec(subject.stderr());
		if (found) return found;
		if (subject.child.exitCode !== null || Date.now() > deadline) {
			throw new Error(`${subject.label}: no line ${pattern} (exit ${subject.child.exitCode}):\n${subject.stderr()}`);
		}
		await sleep(100);
	}
}

/** One GET of /metrics: latency in ms (to the body's end) and the body's size and sample count. */
async function scrape(url) {
	const t0 = performance.now();
	const response = await fetch(url, {signal: AbortSignal.timeout(10_000)});
	const body = await response.text();
	const ms = performance.now() - t0;
	if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
	const samples = body.split('\n').filter(line => line !== '' && !line.startsWith('#')).length;
	return {ms, bytes: Buffer.byteLength(body), samples};
}

async function stop(subject) {
	if (subject.child.exitCode !== null || subject.child.signalCode !== null) return;
	const exited = new Promise(resolve => subject.child.once('exit', resolve));
	subject.child.kill('SIGINT');
	const timer = setTimeout(() => subject.child.kill('SIGKILL'), 10_000);
	await exited;
	clearTimeout(timer);
}

function cleanup() {
	for (const child of live) child.kill('SIGKILL');
	void job.stop();
}
process.on('SIGINT', () => {
	cleanup();
	rmSync(work, {recursive: true, force: true});
	process.exit(130);
});

async function round(index) {
	const listenFirst = index % 2 === 0;
	const make = [
		() => traintop('headless --listen, scraped', ['--listen', '127.0.0.1:0']),
		() => traintop('headless', []),
	];
	const [first, second] = listenFirst ? make : [make[1], make[0]];
	const a = first();
	const b = second();
	const listening = listenFirst ? a : b;
	const plain = listenFirst ? b : a;
	const port = Number((await waitForLine(listening, /metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/))[1]);
	const targets = [{subject: listening, url: `http://127.0.0.1:${port}/metrics`, scrapes: []}];
	const subjects = [listening, plain];
	if (withPeer) {
		const peer = start(NODE_EXPORTER, NODE_EXPORTER, ['--web.listen-address=127.0.0.1:0']);
		// node_exporter logs `Listening on` with the address it bound (go-kit's logfmt: address=127.0.0.1:PORT).
		const peerPort = Number((await waitForLine(peer, /Listening on.*?127\.0\.0\.1:(\d+)/))[1]);
		targets.push({subject: peer, url: `http://127.0.0.1:${peerPort}/metrics`, scrapes: []});
		subjects.push(peer);
	}
	await sleep(warmupS * 1000);
	const before = subjects.map(s => cpuSeconds(s.pid));
	const t0 = performance.now();
	// Scrapes at 0, 15, 30 … s into the window, as Prometheus does from its first scrape on.
	let nextScrape = t0;
	while (performance.now() - t0 < durationS * 1000) {
		if (performance.now() >= nextScrape) {
			nextScrape += scrapeEveryS * 1000;
			for (const target of targets) target.scrapes.push(await scrape(target.url));
		}
		await sleep(Math.max(0, Math.min(nextScrape, t0 + durationS * 1000) - performance.now()));
	}
	const wall = (performance.now() - t0) / 1000;
	const cpu = subjects.map((s, i) => ((cpuSeconds(s.pid) - before[i]) / wall) * 100);
	const hwm = subjects.map(s => statusKb(s.pid, 'VmHWM') / 1024);
	const rss = subjects.map(s => statusKb(s.pid, 'VmRSS') / 1024);
	await Promise.all(subjects.map(stop));
	return {
		listenFirst,
		wall,
		rows: subjects.map((s, i) => ({label: s.label, cpu: cpu[i], hwm: hwm[i], rss: rss[i]})),
		scrapes: targets.map(t => ({label: t.subject.label, list: t.scrapes})),
	};
}

const results = [];
try {
	console.log(
		`${rounds} round(s) of ${durationS} s after a ${warmupS} s warm-up, scraping every ${scrapeEveryS} s, beside ` +
			`the demo job (8 ranks × 2 workers, 50 checkpoints, 8 fake GPUs)…`,
	);
	for (let i = 0; i < rounds; i++) {
		const result = await round(i);
		results.push(result);
		const line = result.rows.map(r => `${r.label} ${r.cpu.toFixed(3)} %`).join(', ');
		console.log(`round ${i + 1} (${result.listenFirst ? '--listen' : 'plain'} started first): ${line}`);
	}
} finally {
	cleanup();
	await job.stop();
	await sleep(500);
	rmSync(work, {recursive: true, force: true});
}

const mean = list => list.reduce((sum, x) => sum + x, 0) / list.length;
const sd = list =>
	list.length < 2 ? 0 : Math.sqrt(list.reduce((s, x) => s + (x - mean(list)) ** 2, 0) / (list.length - 1));
const cpuOf = label => results.map(r => r.rows.find(row => row.label === label)?.cpu ?? Number.NaN);
const memoryOf = (label, key) => results.map(r => r.rows.find(row => row.label === label)?.[key] ?? Number.NaN);
const LISTEN = 'headless --listen, scraped';
const diffs = results.map((_, i) => cpuOf(LISTEN)[i] - cpuOf('headless')[i]);
const labels = [LISTEN, 'headless', ...(withPeer ? [NODE_EXPORTER] : [])];

console.log('');
const rowText = (label, values, extra) =>
	`${label.padEnd(30)}${values.map(v => v.toFixed(3).padStart(10)).join('')}${extra}`;
const head = results.map((_, i) => `round ${i + 1}`.padStart(10)).join('');
console.log(
	`${'CPU % of one core'.padEnd(30)}${head}${'mean'.padStart(10)}${'sd'.padStart(8)}` +
		`${'peak RSS MB'.padStart(13)}${'RSS MB at end'.padStart(15)}`,
);
for (const label of labels) {
	const values = cpuOf(label);
	console.log(
		rowText(
			label,
			values,
			`${mean(values).toFixed(3).padStart(10)}${sd(values).toFixed(3).padStart(8)}` +
				`${Math.max(...memoryOf(label, 'hwm'))
					.toFixed(1)
					.padStart(13)}` +
				`${mean(memoryOf(label, 'rss')).toFixed(1).padStart(15)}`,
		),
	);
}
console.log(
	rowText(
		'difference (--listen − plain)',
		diffs,
		`${mean(diffs).toFixed(3).padStart(10)}${sd(diffs).toFixed(3).padStart(8)}`,
	),
);
console.log(`difference: min ${Math.min(...diffs).toFixed(3)}, max ${Math.max(...diffs).toFixed(3)} % of a core`);
for (const label of [LISTEN, ...(withPeer ? [NODE_EXPORTER] : [])]) {
	const all = results.flatMap(r => r.scrapes.find(s => s.label === label)?.list ?? []);
	const ms = all.map(s => s.ms).sort((x, y) => x - y);
	const median = ms[Math.floor(ms.length / 2)] ?? Number.NaN;
	console.log(
		`scrapes of ${label}: ${all.length}, latency median ${median.toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms; ` +
			`body ${Math.round(mean(all.map(s => s.bytes)))} bytes, ${Math.round(mean(all.map(s => s.samples)))} samples`,
	);
}
const ok = mean(diffs) <= 0.3 && Math.max(...diffs) <= 0.3;
console.log(
	`${ok ? 'ok  ' : 'FAIL'} --listen scraped every ${scrapeEveryS} s costs ≤ +0.3 % of a core (mean and every round)`,
);

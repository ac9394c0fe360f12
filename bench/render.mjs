#!/usr/bin/env node
// Render time of the TUI's App with a big job: 64 ranks, 200 checkpoints, 8 GPUs, 50 alerts.
// Each round publishes a new snapshot (as the Monitor does every second) and times the whole
// update: React's render of App and the panes, Ink's layout and the frame written to stdout.
//
//   npm run build && npm run bench:render [-- --rounds 300]

import {EventEmitter} from 'node:events';
import {existsSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

// As the CLI runs it (cli.ts): React's production build, unless the caller chose otherwise.
process.env.NODE_ENV ??= 'production';
const {default: React} = await import('react');
const {render} = await import('ink');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(path.join(root, 'dist/ui/app.js'))) {
	console.error('bench/render needs a build (npm run build)');
	process.exit(2);
}
const {default: App} = await import(path.join(root, 'dist/ui/app.js'));
const arg = (name, fallback) => {
	const i = process.argv.indexOf(name);
	return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const rounds = arg('--rounds', 300);

const GIB = 1024 ** 3;
const _MIB = 1024 ** 2;
const T0 = Date.UTC(2026, 10, 22, 12);
const sig = (disposition, terminatesByDefault = true) => ({
	disposition,
	blocked: false,
	pending: false,
	terminatesByDefault,
});

function rank(n) {
	return {
		rank: n,
		localRank: n % 8,
		worldSize: 64,
		pid: 10_000 + n,
		ppid: 9_999 - Math.floor(n / 8),
		startTime: 1000 + n,
		startedAt: T0 - 3_600_000,
		host: `node${Math.floor(n / 8)}`,
		cmd: '/opt/conda/bin/python3 -u train.py --config configs/llama-70b.yaml',
		state: 'R',
		cpuPercent: 97 + (n % 3),
		rssBytes: (30 + (n % 5)) * GIB,
		gpuMemoryBytes: 71 * GIB,
		signals: {
			SIGTERM: sig('handled'),
			SIGINT: sig('handled'),
			SIGUSR1: n === 13 ? sig('default') : sig('handled'),
			SIGUSR2: sig('default'),
			SIGCONT: sig('default', false),
			SIGHUP: sig('default'),
			SIGQUIT: sig('default'),
		},
		workers: [20_000 + n * 4, 20_001 + n * 4, 20_002 + n * 4, 20_003 + n * 4],
		slurm: {jobId: '4242', stepId: '0', restartCount: 1, procId: n, localId: n % 8, nodeList: 'node[0-7]'},
		stalled: n === 41,
		stopped: false,
		job: 'slurm:4242.0',
	};
}

const checkpoints = Array.from({length: 200}, (_, i) => ({
	path: `/scratch/runs/llama/checkpoints/checkpoint-${(i + 1) * 500}`,
	name: `checkpoint-${(i + 1) * 500}`,
	layout: 'huggingface',
	step: (i + 1) * 500,
	epoch: i / 20,
	time: T0 - (200 - i) * 1_800_000,
	bytes: 140 * GIB,
	status: i === 199 ? 'partial' : 'complete',
	kind: i % 50 === 0 ? 'manual' : 'periodic',
	loss: 2.1 - i / 200,
	warnings: [],
	retention: i < 2 ? 'prune-next' : 'keep',
}));
const index = {
	runDir: '/scratch/runs/llama',
	layouts: ['huggingface'],
	checkpoints,
	retention: {keep: 198, source: 'flag', count: 199, toPrune: checkpoints.slice(0, 2).map(c => c.path)},
	disk: {freeBytes: 9.1e12, totalBytes: 4e13, avgCheckpointBytes: 140 * GIB, savesUntilFull: 62},
	lastSave: {time: T0 - 1_800_000, ageS: 1800, medianIntervalS: 1800, periodicTime: T0 - 1_800_000, overdue: false},
	warnings: [],
	scannedAt: T0,
};
// One SLURM step of 64 tasks: one job, as discovery groups them.
const rankList = Array.from({length: 64}, (_, n) => rank(n));
const job = {
	id: 'slurm:4242.0',
	identity: 'slurm',
	launcher: null,
	ranks: rankList,
	worldSize: 64,
	localWorldSize: 8,
	allLocalRanksPresent: false,
	runDir: '/scratch/runs/llama',
	cwd: '/scratch/runs/llama',
	slurm: rankList[0].slurm,
};
const ranks = {
	ranks: rankList,
	jobs: [job],
	launcher: null,
	departed: [],
	ended: [],
	runDirMatch: {jobs: [job.id], evidence: 'working directory'},
	sampledAt: T0,
};
// The job's life as the alerts pane shows it beside the level changes: saves seen, a stall.
const jobEvents = Array.from({length: 20}, (_, i) => ({
	time: T0 - (20 - i) * 90_000,
	kind: i === 19 ? 'rank-stalled' : 'save-seen',
	job: 'slurm:4242.0',
	rank: i === 19 ? 41 : null,
	pid: i === 19 ? 10_041 : null,
	level: i === 19 ? 'warn' : 'ok',
	text:
		i === 19 ? 'rank 41 (pid 10041) stalled: no CPU time for 60 s' : `saved checkpoint-${(i + 180) * 500} (periodic)`,
	checkpoint: i === 19 ? undefined : `checkpoint-${(i + 180) * 500}`,
}));
const alerts = Array.from({length: 50}, (_, i) => ({
	time: T0 - (50 - i) * 60_000,
	metric: `gpu${i % 8}`,
	value: 88 + (i % 5),
	threshold: 90,
	from: i % 2 ? 'warn' : 'ok',
	to: i % 2 ? 'critical' : 'warn',
}));

function snapshot(tick) {
	const ram = 60 + (tick % 20);
	const gpus = Array.from({length: 8}, (_, i) => ({
		index: i,
		uuid: `GPU-${i}`,
		name: 'NVIDIA H100 80GB HBM3',
		memoryTotalBytes: 80 * GIB,
		memoryUsedBytes: (71 + ((i + tick) % 8)) * GIB,
		memoryPercent: ((71 + ((i + tick) % 8)) / 80) * 100,
		utilizationPercent: 99,
	}));
	const metrics = {ram: {value: ram, level: ram >= 75 ? 'warn' : 'ok', peak: 79, threshold: 85}};
	for (const g of gpus)
		metrics[`gpu${g.index}`] = {
			value: g.memoryPercent,
			level: g.memoryPercent >= 90 ? 'critical' : g.memoryPercent >= 80 ? 'warn' : 'ok',
			peak: 98,
			threshold: 90,
		};
	return {
		time: T0 + tick * 1000,
		host: 'node0',
		tick,
		memory: {
			ram: {
				totalBytes: 2048 * GIB,
				usedBytes: (2048 * GIB * ram) / 100,
				availableBytes: 2048 * GIB * (1 - ram / 100),
				percent: ram,
			},
			swap: null,
		},
		memoryError: null,
		gpu: {status: 'ok', gpus, sampledAt: T0 + tick * 1000, warning: null},
		gpuProcesses: {processes: [], sampledAt: null, error: null},
		ranks,
		ranksError: null,
		checkpoints: index,
		metrics,
		newAlerts: [],
		recentAlerts: alerts,
		events: [],
		recentEvents: jobEvents,
	};
}

class Store {
	tick = 0;
	current = snapshot(0);
	listeners = new Set();
	subscribe = listener => {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	};
	getSnapshot = () => this.current;
	getHistory = (_metric, limit) =>
		Array.from({length: Math.min(limit, 120)}, (_, i) => ({time: i, value: 60 + (i % 20)}));
	publish() {
		this.current = snapshot(++this.tick);
		for (const l of this.listeners) l(this.current);
	}
}

class FakeTerminal extends EventEmitter {
	constructor(columns, rows) {
		super();
		this.columns = columns;
		this.rows = rows;
		this.isTTY = true;
		this.writes = 0;
	}
	write() {
		this.writes++;
		this.wrote?.(performance.now());
		return true;
	}
	/** Resolves with the time of the next write. */
	nextWrite() {
		return new Promise(resolve => {
			this.wrote = t => {
				this.wrote = null;
				resolve(t);
			};
		});
	}
}

/** What Ink needs of a terminal's input to accept useInput: raw mode and reading, doing nothing. */
class FakeKeyboard extends EventEmitter {
	isTTY = true;
	setRawMode() {}
	setEncoding() {}
	read() {
		return null;
	}
	ref() {}
	unref() {}
}

const actions = {
	signalOf: () => 'SIGUSR1',
	send: () => [],
	awaitCheckpoint: null,
	timeoutS: 60,
	analyze: async () => [],
};
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];

console.log(
	`App render with 64 ranks, 200 checkpoints, 8 GPUs, 50 alerts; ${rounds} snapshots per size; NODE_ENV=${process.env.NODE_ENV}\n`,
);
console.log(
	`${'terminal'.padEnd(10)}${'median ms'.padStart(11)}${'p95 ms'.padStart(9)}${'Ink output ms (median)'.padStart(24)}`,
);
for (const [columns, rows] of [
	[80, 24],
	[120, 40],
	[200, 60],
]) {
	const store = new Store();
	const stdout = new FakeTerminal(columns, rows);
	const inkTimes = [];
	// debug: every update renders at once (no 30 fps throttle), so each round is one full frame.
	// What the TUI reads of a session: the store, a memory log without trouble, the actions.
	const trouble = {get: () => null, subscribe: () => () => {}};
	const session = {host: 'node0', readonly: false, monitor: store, recorder: {trouble}, actions, start: () => {}};
	const instance = render(React.createElement(App, {session}), {
		stdout,
		stdin: new FakeKeyboard(),
		debug: true,
		exitOnCtrlC: false,
		patchConsole: false,
		onRender: ({renderTime}) => inkTimes.push(renderTime),
	});
	const round = async () => {
		const written = stdout.nextWrite();
		const start = performance.now();
		store.publish();
		return (await written) - start;
	};
	for (let i = 0; i < 20; i++) await round();
	inkTimes.length = 0;
	const times = [];
	// React commits a store update in a microtask, Ink writes the frame in the same turn: the time
	// from publish to the write is the whole update.
	for (let i = 0; i < rounds; i++) times.push(await round());
	instance.unmount();
	console.log(
		`${`${columns}×${rows}`.padEnd(10)}${median(times).toFixed(2).padStart(11)}${p95(times).toFixed(2).padStart(9)}${median(inkTimes).toFixed(2).padStart(24)}`,
	);
}

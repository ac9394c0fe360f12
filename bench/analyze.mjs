#!/usr/bin/env node
// `traintop --analyze` against jq on the same 1,000,000-record memory log: wall time and peak RSS of
// each, measured in the same run. jq computes only the maximum RAM percent
// (`jq -n '[inputs.memory.percent] | max'`, its streaming form); traintop does the whole post-mortem
// (every metric's statistics, episodes, trend, gaps) and prints it as JSON.
//
//   npm run build && node bench/analyze.mjs            # 1,000,000 records
//   node bench/analyze.mjs --records 200000
//
// Needs jq and GNU time (/usr/bin/time, Debian package `time`) for the peak RSS of each process.

import {execFileSync, spawnSync} from 'node:child_process';
import {createWriteStream, existsSync, mkdtempSync, rmSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.js');
const arg = (name, fallback) => {
	const i = process.argv.indexOf(name);
	return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const count = arg('--records', 1_000_000);

for (const [what, ok] of [
	['a build (npm run build)', existsSync(cli)],
	['jq', spawnSync('jq', ['--version']).status === 0],
	['GNU time at /usr/bin/time (apt-get install time)', existsSync('/usr/bin/time')],
]) {
	if (!ok) {
		console.error(`bench/analyze needs ${what}`);
		process.exit(2);
	}
}

const work = mkdtempSync(path.join(tmpdir(), 'traintop-analyze-bench-'));
const log = path.join(work, 'traintop-memory.jsonl');

// Rounded as traintop's writer rounds them (memlog/window.ts: GiB to 3 decimals, percents to 2), so
// the file is what `traintop --headless` writes over a year at 30 s per record.
const gb = v => Math.round(v * 1000) / 1000;
const pct = v => Math.round(v * 100) / 100;

/** A 30 s record of a node with 2 GPUs, RAM leaking slowly with noise and an occasional spike. */
function record(i) {
	const t = Date.UTC(2026, 0, 1) + i * 30_000;
	const ram = 40 + (i / count) * 50 + Math.sin(i / 50) * 2;
	const peak = ram + (i % 997 === 0 ? 8 : Math.abs(Math.sin(i)) * 1.5);
	const gpu = (n, base) => ({
		index: n,
		uuid: `GPU-${n}`,
		name: 'NVIDIA H100 80GB HBM3',
		memory_used_gb: gb((79.6 * base) / 100),
		memory_total_gb: 79.6,
		memory_percent: base,
		peak_memory_percent: base + 1,
		utilization_percent: 97,
	});
	return {
		timestamp: new Date(t).toISOString(),
		host: 'gpu-node-7',
		interval_s: 30,
		samples: 30,
		memory: {
			total_gb: 503.7,
			used_gb: gb((503.7 * ram) / 100),
			percent: pct(ram),
			available_gb: gb(503.7 * (1 - ram / 100)),
			peak_percent: pct(peak),
			peak_used_gb: gb((503.7 * peak) / 100),
		},
		swap: null,
		gpu: {memory_allocated_gb: 120, memory_total_gb: 159.2, memory_percent: 75.4, peak_memory_percent: 76.1},
		gpus: [gpu(0, 76.9), gpu(1, 73.9)],
		gpu_status: 'ok',
		alerts: [],
	};
}

console.log(`writing ${count.toLocaleString('en')} records…`);
await new Promise((resolve, reject) => {
	const out = createWriteStream(log);
	out.on('error', reject);
	let i = 0;
	const pump = () => {
		while (i < count) {
			const chunk = [];
			for (let j = 0; j < 1000 && i < count; j++, i++) chunk.push(JSON.stringify(record(i)));
			if (!out.write(`${chunk.join('\n')}\n`)) return out.once('drain', pump);
		}
		out.end(resolve);
	};
	pump();
});
const sizeMb = statSync(log).size / 1024 ** 2;

/** Runs a command under GNU time; returns wall seconds, peak RSS in MB and its stdout. */
function timed(command, args) {
	const result = spawnSync('/usr/bin/time', ['-f', '%e %M', command, ...args], {
		encoding: 'utf8',
		maxBuffer: 64 * 1024 ** 2,
	});
	const [seconds, kb] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
	if (result.status !== 0 && result.status !== 4)
		throw new Error(`${command} failed (${result.status}): ${result.stderr}`);
	return {seconds, rssMb: kb / 1024, stdout: result.stdout};
}

// Warm the page cache so neither side pays for the first read from disk.
execFileSync('cat', [log], {stdio: ['ignore', 'ignore', 'ignore']});
const traintop = timed(process.execPath, [cli, '--analyze', log, '--json']);
const jq = timed('jq', ['-n', '[inputs.memory.percent] | max', log]);
rmSync(work, {recursive: true, force: true});

const analysis = JSON.parse(traintop.stdout);
const jqMax = Number(jq.stdout.trim());
console.log(`\n${count.toLocaleString('en')} records, ${sizeMb.toFixed(0)} MB of JSON Lines\n`);
console.log(`${'tool'.padEnd(52)}${'wall s'.padStart(8)}${'peak RSS MB'.padStart(13)}`);
console.log(
	`${'traintop --analyze --json (full post-mortem)'.padEnd(52)}${traintop.seconds.toFixed(2).padStart(8)}${traintop.rssMb.toFixed(0).padStart(13)}`,
);
console.log(
	`${"jq -n '[inputs.memory.percent] | max'".padEnd(52)}${jq.seconds.toFixed(2).padStart(8)}${jq.rssMb.toFixed(0).padStart(13)}`,
);
console.log(
	`\ntraintop is ${(jq.seconds / traintop.seconds).toFixed(1)}× faster than jq (target ≥ 3×, peak RSS < 150 MB)`,
);
console.log(
	`both agree on the records: traintop read ${analysis.records} of ${count}; max RAM ${analysis.metrics?.ram?.max} (from peaks) vs jq's max of the instants ${jqMax}`,
);

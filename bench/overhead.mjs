#!/usr/bin/env node
// Measures what traintop costs the node it watches, side by side with htop and glances, all running at once for
// the same 60 s: CPU % of one core, peak RSS (VmHWM) and RSS at the end, of
//   - `traintop --headless` at 1 s sampling: without GPUs, with 8 GPUs (the fake nvidia-smi), and with 8 GPUs
//     plus the 8 ranks of the demo job and a run dir of 50 checkpoints (the budget's scenario);
//   - the interactive TUI on that same scenario at 1 s sampling, in a 120×40 and in a 200×60 terminal;
//   - htop -d 10 (1 s refresh) and glances -t 1 (1 s refresh; the glances python process itself).
// The budget (docs/architecture.md "Performance budget"; figures in docs/benchmarks.md): headless < 0.5 % and
// < 100 MB; the TUI at 120×40 no more CPU than glances in the same run and ≤ 120 MB RSS, at 200×60 no more
// than 1.5× that.
//
//   npm run bench:overhead                               # 60 s
//   node bench/overhead.mjs --duration 20                # quicker
//   node bench/overhead.mjs --baseline /tmp/old/dist/cli.js
//       # also that build's TUI, at both sizes, in the same run: before/after a change on equal terms
//   node bench/overhead.mjs --workers 4 --baseline /tmp/old/dist/cli.js
//       # the demo job's ranks with 4 DataLoader workers each (default 2): what per-process reads cost
//
// Needs a build (npm run build), tmux (htop, glances and the TUI need a terminal), htop and glances
// (apt-get install htop glances; benches are not run in CI). CPU is read from /proc/PID/stat (utime + stime of
// that process and its threads, not its children: not the fake nvidia-smi nor the ranks), after a 5 s warm-up so
// start-up (module loading, nvidia-smi's first sample, glances' first full scan) is not counted; peak RSS is the
// kernel's high-water mark, VmHWM, start-up included. Each terminal is a session of a private tmux server.

import {spawn} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {argValue, commandExists, cpuSeconds, requireAll, sleep, statusKb} from './lib/proc.mjs';
import {fakeGpuEnv, root, startScenario, tuiCommand} from './lib/scenario.mjs';
import {TmuxServer} from './lib/tmux.mjs';

const cli = path.join(root, 'dist/cli.js');
const durationS = Number(argValue('--duration', '60'));
const baseline = argValue('--baseline', null);
const workers = Number(argValue('--workers', '2'));
const warmupS = 5;

requireAll('bench/overhead', [
	['a build (npm run build)', existsSync(cli)],
	['tmux', commandExists('tmux')],
	['htop (apt-get install htop)', commandExists('htop')],
	['glances (apt-get install glances)', commandExists('glances')],
	[`the baseline build ${baseline}`, baseline === null || existsSync(baseline)],
]);

const work = mkdtempSync(path.join(tmpdir(), 'traintop-bench-'));
const invocationLog = path.join(work, 'nvidia-smi-calls.jsonl');

function startHeadless(label, extraArgs, env, build = cli) {
	const child = spawn(
		process.execPath,
		[build, '--headless', '--interval', '1', '--log-file', path.join(work, `${label}.jsonl`), ...extraArgs],
		{stdio: ['ignore', 'ignore', 'ignore'], env: {...process.env, ...env}},
	);
	return {label, pid: child.pid, child};
}

const {runDir, job} = await startScenario(work, {workers});
const scenario = `8 GPUs + 8 ranks × ${workers} workers + 50 ckpts`;

const subjects = [
	startHeadless('headless, no GPU', ['--nvidia-smi', '/nonexistent/nvidia-smi'], {}),
	startHeadless('headless, 8 GPUs (fake nvidia-smi)', [], fakeGpuEnv({FAKE_NVSMI_LOG: invocationLog})),
	startHeadless(`headless, ${scenario}`, ['--pid', String(job.launcherPid), runDir], fakeGpuEnv()),
];

const tmux = new TmuxServer('traintop-bench');
function inTerminal(label, columns, rows, command) {
	subjects.push({label, ...tmux.start(columns, rows, command)});
}
const sizes = [
	[120, 40],
	[200, 60],
];
for (const [columns, rows] of sizes) {
	inTerminal(
		`TUI ${columns}×${rows}, same scenario`,
		columns,
		rows,
		tuiCommand({cli, runDir, launcherPid: job.launcherPid}),
	);
}
if (baseline) {
	// The headless view of the budget's scenario too: a new engine's cost is measured against it (at most +0.2 %).
	subjects.push(
		startHeadless(`baseline headless, ${scenario}`, ['--pid', String(job.launcherPid), runDir], fakeGpuEnv(), baseline),
	);
	for (const [columns, rows] of sizes) {
		const command = tuiCommand({cli: baseline, runDir, launcherPid: job.launcherPid});
		inTerminal(`baseline TUI ${columns}×${rows}`, columns, rows, command);
	}
}
inTerminal('htop -d 10 (1 s refresh)', 120, 40, 'exec htop -d 10');
// /usr/bin/glances is a python script: exec'ed, the pane's process is the python running glances.
inTerminal('glances -t 1 (1 s refresh)', 120, 40, 'exec glances -t 1');

function cleanup() {
	for (const s of subjects) s.child?.kill('SIGINT');
	tmux.close();
	void job.stop();
}
process.on('SIGINT', () => {
	cleanup();
	process.exit(130);
});

console.log(`measuring for ${durationS} s after a ${warmupS} s warm-up…`);
await sleep(warmupS * 1000);
const start = subjects.map(s => cpuSeconds(s.pid));
const t0 = performance.now();
const callsBefore = existsSync(invocationLog) ? readFileSync(invocationLog, 'utf8').trim().split('\n').length : 0;
while (performance.now() - t0 < durationS * 1000) await sleep(1000);
const wall = (performance.now() - t0) / 1000;
const rows = subjects.map((s, i) => ({
	label: s.label,
	cpu: ((cpuSeconds(s.pid) - start[i]) / wall) * 100,
	hwm: statusKb(s.pid, 'VmHWM') / 1024,
	rss: statusKb(s.pid, 'VmRSS') / 1024,
}));
const calls = existsSync(invocationLog) ? readFileSync(invocationLog, 'utf8').trim().split('\n') : [];
const callsDuring = calls.length - callsBefore;
cleanup();
await job.stop();
await sleep(500);
rmSync(work, {recursive: true, force: true});

console.log('');
console.log(
	`${'process'.padEnd(56)}${'CPU % of one core'.padStart(18)}${'peak RSS MB'.padStart(13)}${'RSS MB'.padStart(9)}`,
);
for (const r of rows) {
	console.log(
		`${r.label.padEnd(56)}${r.cpu.toFixed(2).padStart(18)}${r.hwm.toFixed(1).padStart(13)}${r.rss.toFixed(1).padStart(9)}`,
	);
}
console.log('');
console.log(`over ${wall.toFixed(1)} s`);
const row = label => rows.find(r => r.label.startsWith(label));
const glances = row('glances');
const small = row('TUI 120×40');
const big = row('TUI 200×60');
const verdict = (ok, text) => console.log(`${ok ? 'ok  ' : 'FAIL'} ${text}`);
verdict(
	small.cpu <= glances.cpu,
	`TUI 120×40 CPU ${small.cpu.toFixed(2)} % ≤ glances' ${glances.cpu.toFixed(2)} % in this run`,
);
verdict(small.hwm <= 120, `TUI 120×40 peak RSS ${small.hwm.toFixed(1)} MB ≤ 120 MB`);
verdict(
	big.cpu <= 1.5 * glances.cpu && big.hwm <= 180,
	`TUI 200×60 within 1.5× that budget: CPU ${big.cpu.toFixed(2)} % ≤ ${(1.5 * glances.cpu).toFixed(2)} %, ` +
		`peak RSS ${big.hwm.toFixed(1)} MB ≤ 180 MB (${(big.cpu / small.cpu).toFixed(2)}× the 120×40 TUI's CPU)`,
);
for (const r of rows.filter(r => r.label.startsWith('headless'))) {
	verdict(r.cpu < 0.5 && r.hwm < 100, `${r.label}: < 0.5 % CPU and < 100 MB peak RSS`);
}
console.log(
	`nvidia-smi started ${callsDuring} time(s) for the second headless traintop during the measurement (the long-lived -lms loop once at start-up, ` +
		'then one --query-compute-apps one-shot per --gpu-process-interval, 5 s)',
);

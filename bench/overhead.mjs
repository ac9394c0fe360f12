#!/usr/bin/env node
// Measures what traintop costs the node it watches: CPU % of one core and peak RSS of
// `traintop --headless` at 1 s sampling — without GPUs, with 8 GPUs (the fake nvidia-smi), and with
// 8 GPUs plus the 8 ranks of the demo job and a run dir of 50 checkpoints — side by side with htop
// at the same refresh (-d 10),
// all running at once for the same 60 s.
//
//   npm run bench:overhead                 # 60 s
//   node bench/overhead.mjs --duration 20  # quicker
//
// Needs a build (npm run build), tmux (htop needs a terminal) and htop (apt-get install htop).
// CPU is read from /proc/PID/stat (utime + stime of that process alone, not its children), after a
// 3 s warm-up so start-up (module loading, nvidia-smi's first sample) is not counted; peak RSS is
// the kernel's high-water mark, VmHWM, start-up included.

import {execFileSync, spawn} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.js');
const fakeDir = path.join(root, 'test/helpers/fake-nvidia-smi');
const durationArg = process.argv.indexOf('--duration');
const durationS = durationArg > 0 ? Number(process.argv[durationArg + 1]) : 60;
const warmupS = 3;
const clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

for (const [what, ok] of [
	['a build (npm run build)', existsSync(cli)],
	['tmux', commandExists('tmux')],
	['htop (apt-get install htop)', commandExists('htop')],
]) {
	if (!ok) {
		console.error(`bench/overhead needs ${what}`);
		process.exit(2);
	}
}

function commandExists(name) {
	try {
		execFileSync('sh', ['-c', `command -v ${name}`], {stdio: 'ignore'});
		return true;
	} catch {
		return false;
	}
}

/** utime + stime of one process, in seconds (fields 14 and 15, counted after the ')' of comm). */
function cpuSeconds(pid) {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

function statusKb(pid, key) {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	return Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
}

const work = mkdtempSync(path.join(tmpdir(), 'traintop-bench-'));
const invocationLog = path.join(work, 'nvidia-smi-calls.jsonl');

function startTraintop(label, extraArgs, env) {
	const child = spawn(
		process.execPath,
		[cli, '--headless', '--interval', '1', '--log-file', path.join(work, `${label}.jsonl`), ...extraArgs],
		{stdio: ['ignore', 'ignore', 'ignore'], env: {...process.env, ...env}},
	);
	return {label, pid: child.pid, child};
}

// The performance budget's scenario (README "Performance"): 8 ranks. The demo job's ranks are python3 processes
// whose own CPU is not traintop's; traintop finds them with --pid and scans them every 2 s.
// Its run dir holds 50 checkpoints in the seed layout (the budget's "run dir of 50 checkpoints"),
// which that traintop watches as its RUN_DIR.
const {startDemoJob} = await import(path.join(root, 'dist/demo/job.js'));
const runDir = path.join(work, 'run');
const EMPTY_ZIP = Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]);
for (let step = 100; step <= 5000; step += 100) {
	const dir = path.join(runDir, 'checkpoints', `checkpoint_step_${step}_20261122_${String(step).padStart(6, '0')}`);
	mkdirSync(dir, {recursive: true});
	writeFileSync(path.join(dir, 'state.pt'), EMPTY_ZIP);
}
const job = await startDemoJob({runDir, ranks: 8, workers: 2, stepSeconds: 0.5, saveEvery: 0, shutdownTimeoutS: 5});
await job.ranksReady();

const subjects = [
	startTraintop('traintop, no GPU', ['--nvidia-smi', '/nonexistent/nvidia-smi'], {}),
	startTraintop('traintop, 8 GPUs (fake nvidia-smi)', [], {
		PATH: `${fakeDir}:${process.env.PATH}`,
		FAKE_NVSMI_SCENARIO: 'issue-titanx-8gpu-noheader-nounits',
		FAKE_NVSMI_LOG: invocationLog,
	}),
	startTraintop('traintop, 8 GPUs + 8 ranks + 50 ckpts', ['--pid', String(job.launcherPid), runDir], {
		PATH: `${fakeDir}:${process.env.PATH}`,
		FAKE_NVSMI_SCENARIO: 'issue-titanx-8gpu-noheader-nounits',
	}),
];

const session = `traintop-bench-${process.pid}`;
execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '200', '-y', '50', 'htop -d 10']);
const htopPid = Number(execFileSync('tmux', ['list-panes', '-t', session, '-F', '#{pane_pid}']).toString().trim());
subjects.push({label: 'htop -d 10 (1 s refresh)', pid: htopPid});

// The interactive TUI in the budget's scenario, drawing at 120×40 every second.
const tuiSession = `${session}-tui`;
const tuiCommand = `exec env PATH=${fakeDir}:${process.env.PATH} FAKE_NVSMI_SCENARIO=issue-titanx-8gpu-noheader-nounits ${process.execPath} ${cli} ${runDir} --pid ${job.launcherPid} --interval 1 --no-log`;
execFileSync('tmux', ['new-session', '-d', '-s', tuiSession, '-x', '120', '-y', '40', tuiCommand]);
const tuiPid = Number(execFileSync('tmux', ['list-panes', '-t', tuiSession, '-F', '#{pane_pid}']).toString().trim());
subjects.push({label: 'traintop TUI 120×40, same as the above', pid: tuiPid});

function cleanup() {
	for (const s of subjects) s.child?.kill('SIGINT');
	void job.stop();
	for (const name of [session, `${session}-tui`]) {
		try {
			execFileSync('tmux', ['kill-session', '-t', name], {stdio: 'ignore'});
		} catch {}
	}
}
process.on('SIGINT', () => {
	cleanup();
	process.exit(130);
});

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
console.log(`measuring for ${durationS} s after a ${warmupS} s warm-up…`);
await sleep(warmupS * 1000);
const start = subjects.map(s => cpuSeconds(s.pid));
const t0 = performance.now();
const callsBefore = existsSync(invocationLog) ? readFileSync(invocationLog, 'utf8').trim().split('\n').length : 0;
const maxRss = subjects.map(() => 0);
while (performance.now() - t0 < durationS * 1000) {
	await sleep(1000);
	subjects.forEach((s, i) => {
		maxRss[i] = Math.max(maxRss[i], statusKb(s.pid, 'VmRSS'));
	});
}
const wall = (performance.now() - t0) / 1000;
const rows = subjects.map((s, i) => ({
	label: s.label,
	cpu: ((cpuSeconds(s.pid) - start[i]) / wall) * 100,
	rss: maxRss[i] / 1024,
	hwm: statusKb(s.pid, 'VmHWM') / 1024,
}));
const calls = existsSync(invocationLog) ? readFileSync(invocationLog, 'utf8').trim().split('\n') : [];
const callsDuring = calls.length - callsBefore;
cleanup();
await job.stop();
await sleep(500);
rmSync(work, {recursive: true, force: true});

console.log('');
console.log(
	`${'process'.padEnd(40)}${'CPU % of one core'.padStart(18)}${'max RSS MB'.padStart(12)}${'VmHWM MB'.padStart(10)}`,
);
for (const r of rows) {
	console.log(
		`${r.label.padEnd(40)}${r.cpu.toFixed(2).padStart(18)}${r.rss.toFixed(1).padStart(12)}${r.hwm.toFixed(1).padStart(10)}`,
	);
}
console.log('');
console.log(`over ${wall.toFixed(1)} s; target for traintop: < 0.5 % CPU and < 100 MB RSS`);
console.log(
	`nvidia-smi started ${callsDuring} time(s) for the second traintop during the measurement (the long-lived -lms loop once at start-up, ` +
		'then one --query-compute-apps one-shot per --gpu-process-interval, 5 s)',
);

#!/usr/bin/env node
// The 24-hour soak, accelerated: the TUI (in a 120×40 tmux terminal) and `traintop --headless`, side by side, on
// the budget's scenario (the demo job's 8 ranks, a run dir of 50 checkpoints, 8 GPUs from the fake nvidia-smi),
// sampling every 0.1 s (the shortest --interval the settings accept; 10× the default), scanning the ranks every
// 0.5 s (the shortest --ranks-interval; 4×), listing GPU processes every 0.5 s (10×) and writing the memory log
// every 3 s (10×). Every minute it prints each one's RSS, its lowest and highest over the minute (read every 5 s),
// anonymous RSS (RssAnon: the JS heap and malloc, not the mapped code) and CPU % of a core over that minute; at
// the end, a verdict: the growth from minute 5 (start-up and warm-up over) to the end, in MB and %, of the RSS
// and of the minute's lowest RSS (the floor the garbage collector gets back to: what a leak raises).
//
//   npm run bench:soak                       # 30 min
//   node bench/soak.mjs --minutes 5          # a quick look
//   node bench/soak.mjs --interval 0.5       # another sampling interval
//
// Needs a build (npm run build) and tmux.

import {spawn} from 'node:child_process';
import {existsSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {argValue, commandExists, cpuSeconds, requireAll, sleep, statusKb} from './lib/proc.mjs';
import {fakeGpuEnv, root, startScenario, tuiCommand} from './lib/scenario.mjs';
import {TmuxServer} from './lib/tmux.mjs';

const cli = path.join(root, 'dist/cli.js');
const minutes = Number(argValue('--minutes', '30'));
const interval = argValue('--interval', '0.1');
/** The minute from which growth is counted: before it, start-up and the heap's first growth. */
const fromMinute = Math.min(5, Math.max(1, minutes - 1));

requireAll('bench/soak', [
	['a build (npm run build)', existsSync(cli)],
	['tmux', commandExists('tmux')],
	['--minutes of at least 2', minutes >= 2],
]);

const work = mkdtempSync(path.join(tmpdir(), 'traintop-soak-'));
const {runDir, job} = await startScenario(work);
const accelerated = label => [
	'--ranks-interval',
	'0.5',
	'--gpu-process-interval',
	'0.5',
	'--log-interval',
	'3',
	'--log-file',
	path.join(work, `${label}.jsonl`),
];

const tmux = new TmuxServer('traintop-soak');
const tui = tmux.start(
	120,
	40,
	tuiCommand({cli, runDir, launcherPid: job.launcherPid, interval, args: accelerated('tui')}),
);
const headlessChild = spawn(
	process.execPath,
	[cli, '--headless', '--interval', interval, ...accelerated('headless'), '--pid', String(job.launcherPid), runDir],
	{stdio: ['ignore', 'ignore', 'ignore'], env: {...process.env, ...fakeGpuEnv()}},
);
const subjects = [
	{label: 'TUI 120×40', pid: tui.pid},
	{label: 'headless', pid: headlessChild.pid},
];

async function cleanup() {
	headlessChild.kill('SIGINT');
	tmux.close();
	await job.stop();
	rmSync(work, {recursive: true, force: true});
}
process.on('SIGINT', () => {
	void cleanup().then(() => process.exit(130));
});

const mb = kb => (kb / 1024).toFixed(1);
console.log(
	`soak: ${minutes} min at --interval ${interval}. Each minute: RSS now, and its lowest and highest over the minute ` +
		'(read every 5 s: the heap fills with garbage between collections, so the lowest, after one, is what a leak ' +
		'raises), RssAnon now (the JS heap and malloc), CPU % of a core over the minute. MB.',
);
console.log(
	`${'min'.padStart(4)}${subjects.map(s => `${`${s.label} RSS`.padStart(17)}${'low–high'.padStart(14)}${'anon'.padStart(7)}${'CPU %'.padStart(7)}`).join('')}`,
);
/** Per subject, per minute: the RSS read at its end, and its lowest and highest over it. */
const minutesOf = subjects.map(() => []);
let cpuBefore = subjects.map(s => cpuSeconds(s.pid));
const t0 = performance.now();
for (let minute = 1; minute <= minutes; minute++) {
	const low = subjects.map(() => Number.POSITIVE_INFINITY);
	const high = subjects.map(() => 0);
	for (let tick = 1; tick <= 12; tick++) {
		await sleep(t0 + ((minute - 1) * 60 + tick * 5) * 1000 - performance.now());
		subjects.forEach((s, i) => {
			const rss = statusKb(s.pid, 'VmRSS');
			low[i] = Math.min(low[i], rss);
			high[i] = Math.max(high[i], rss);
		});
	}
	const cpuNow = subjects.map(s => cpuSeconds(s.pid));
	const cells = subjects.map((s, i) => {
		const rss = statusKb(s.pid, 'VmRSS');
		minutesOf[i].push({rss, low: low[i], high: high[i]});
		const cpu = ((cpuNow[i] - cpuBefore[i]) / 60) * 100;
		return `${mb(rss).padStart(17)}${`${mb(low[i])}–${mb(high[i])}`.padStart(14)}${mb(statusKb(s.pid, 'RssAnon')).padStart(7)}${cpu.toFixed(2).padStart(7)}`;
	});
	cpuBefore = cpuNow;
	console.log(`${String(minute).padStart(4)}${cells.join('')}`);
}
const alive = subjects.map(s => Number.isFinite(statusKb(s.pid, 'VmRSS')));
await cleanup();

console.log('');
const change = (from, to) => {
	const growth = (to - from) / 1024;
	return `${mb(from)} → ${mb(to)} MB, ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB (${((growth / (from / 1024)) * 100).toFixed(1)} %)`;
};
for (const [i, s] of subjects.entries()) {
	const from = minutesOf[i][fromMinute - 1];
	const to = minutesOf[i].at(-1);
	const highest = Math.max(...minutesOf[i].map(m => m.high));
	console.log(
		`${alive[i] ? '' : 'EXITED '}${s.label}, minute ${fromMinute} → ${minutes}: RSS ${change(from.rss, to.rss)}; ` +
			`lowest of the minute ${change(from.low, to.low)}; highest RSS seen ${mb(highest)} MB`,
	);
}

#!/usr/bin/env node
// Profiles the interactive TUI in the budget's scenario (8 GPUs from the fake nvidia-smi, the demo job's 8
// ranks, a run dir of 50 checkpoints, 1 s sampling): `node --cpu-prof` running dist/cli.js in a tmux terminal
// for 60 s, then q; prints where the time went (bench/cpu-profile-summary.mjs) and keeps the .cpuprofile
// (open it in Chrome DevTools or VS Code for the call tree).
//
//   npm run bench:profile                                  # 120×40, 60 s
//   node bench/profile-tui.mjs --size 200x60 --duration 30 --out /tmp/prof
//   node bench/profile-tui.mjs --cli /tmp/old/dist/cli.js  # another build
//   node bench/profile-tui.mjs --interval 0.1 --warmup 120  # the soak's pace, after two minutes
//
// Needs a build (npm run build) and tmux.

import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {formatSummary, summarise} from './cpu-profile-summary.mjs';
import {argValue, commandExists, cpuSeconds, requireAll, sleep, statusKb} from './lib/proc.mjs';
import {root, startScenario, tuiCommand} from './lib/scenario.mjs';
import {TmuxServer} from './lib/tmux.mjs';

const cli = path.resolve(argValue('--cli', path.join(root, 'dist/cli.js')));
const durationS = Number(argValue('--duration', '60'));
const [columns, rows] = argValue('--size', '120x40').split(/[x×]/).map(Number);
const out = path.resolve(argValue('--out', mkdtempSync(path.join(tmpdir(), 'traintop-prof-'))));
const top = Number(argValue('--top', '25'));
const interval = Number(argValue('--interval', '1'));
// Start-up (module loading, the first samples, the first full frame) is left out of the summary and the CPU %.
const warmupS = Number(argValue('--warmup', '5'));

requireAll('bench/profile-tui', [
	[`a build (npm run build): ${cli}`, existsSync(cli)],
	['tmux', commandExists('tmux')],
]);
mkdirSync(out, {recursive: true});
const before = new Set(readdirSync(out));

const work = mkdtempSync(path.join(tmpdir(), 'traintop-prof-run-'));
const {runDir, job} = await startScenario(work);
const tmux = new TmuxServer('traintop-prof');
const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${out}`];
const {session, pid} = tmux.start(
	columns,
	rows,
	tuiCommand({cli, runDir, launcherPid: job.launcherPid, interval, nodeArgs}),
);
const cleanup = async () => {
	tmux.close();
	await job.stop();
	rmSync(work, {recursive: true, force: true});
};
process.on('SIGINT', () => {
	void cleanup().then(() => process.exit(130));
});

console.log(
	`profiling the TUI at ${columns}×${rows}, --interval ${interval}, for ${durationS} s after a ${warmupS} s warm-up (${cli})…`,
);
await sleep(warmupS * 1000);
const cpu0 = cpuSeconds(pid);
await sleep(durationS * 1000);
const cpu = cpuSeconds(pid) - cpu0;
const hwm = statusKb(pid, 'VmHWM') / 1024;
const rss = statusKb(pid, 'VmRSS') / 1024;
tmux.keys(session, 'q');
// The profile is written as the process exits.
let file;
for (let i = 0; i < 100 && !file; i++) {
	await sleep(200);
	file = readdirSync(out).find(name => name.endsWith('.cpuprofile') && !before.has(name));
}
await sleep(500);
await cleanup();
if (!file) {
	console.error(`no .cpuprofile appeared in ${out}`);
	process.exit(1);
}
const profilePath = path.join(out, file);
console.log(
	`whole process (all threads, under the profiler, after the warm-up): ${((cpu / durationS) * 100).toFixed(2)} % of a core, ` +
		`peak RSS ${hwm.toFixed(1)} MB, RSS ${rss.toFixed(1)} MB`,
);
console.log(formatSummary(summarise(JSON.parse(readFileSync(profilePath, 'utf8')), warmupS), top));
console.log(`\nprofile: ${profilePath}`);

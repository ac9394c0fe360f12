#!/usr/bin/env node
// The many-node TUI's own cost, without 64 nodes' worth of agents and ranks on this machine: one real agent on the
// demo job (8 ranks, 8 GPUs of the fake nvidia-smi) is recorded for a while, then every node of the viewer is that
// recording replayed by a stand-in for ssh (lib/agent-replay.mjs: its host, its times moved to now, a line a
// second). The viewer at 200×60 and the one-node TUI on the same demo job are measured side by side; with
// --baseline, another build's viewer too, in the same run. bench/fleet.mjs is the budget's scenario (real agents);
// this one is for comparing builds and profiling the viewer, where 64 real agents' load would drown the difference.
//
//   node bench/fleet-replay.mjs [--nodes 64] [--duration 40] [--record 30]
//   node bench/fleet-replay.mjs --baseline /tmp/old/dist/cli.js    # two builds' viewers in the same run
//   node bench/fleet-replay.mjs --profile /tmp/prof                 # the viewer under node --cpu-prof
//
// Needs a build (npm run build) and tmux.

import {spawn} from 'node:child_process';
import {chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {argValue, commandExists, cpuSeconds, requireAll, sleep, statusKb} from './lib/proc.mjs';
import {fakeGpuEnv, root, startScenario, tuiCommand} from './lib/scenario.mjs';
import {shellQuote, TmuxServer} from './lib/tmux.mjs';

const cli = path.resolve(argValue('--cli', path.join(root, 'dist/cli.js')));
const baseline = argValue('--baseline', '');
const nodes = Number(argValue('--nodes', '64'));
const durationS = Number(argValue('--duration', '40'));
const recordS = Number(argValue('--record', '30'));
const profileDir = argValue('--profile', '');
const WARMUP_S = 15;

requireAll('bench/fleet-replay', [
	[`a build (npm run build): ${cli}`, existsSync(cli)],
	[`the baseline build: ${baseline}`, baseline === '' || existsSync(baseline)],
	['tmux', commandExists('tmux')],
]);

const work = mkdtempSync(path.join(tmpdir(), 'traintop-bench-replay-'));
const {runDir, job} = await startScenario(work);
const tmux = new TmuxServer('traintop-replay');
try {
	console.log(`recording the demo job's agent for ${recordS} s…`);
	const stream = path.join(work, 'agent-stream.jsonl');
	writeFileSync(stream, await record(recordS + 1));
	const ssh = path.join(work, 'ssh');
	writeFileSync(
		ssh,
		`#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(path.join(root, 'bench/lib/agent-replay.mjs'))} ${shellQuote(stream)} "$@"\n`,
	);
	chmodSync(ssh, 0o755);
	const hosts = Array.from({length: nodes}, (_, i) => `node${String(i + 1).padStart(2, '0')}`).join(',');
	const viewer = (build, profile) => {
		const prof = profile ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profile)] : [];
		const words = [
			process.execPath,
			...prof,
			build,
			'--hosts',
			hosts,
			'--ssh-command',
			ssh,
			'--interval',
			'1',
			'--no-log',
		];
		return `exec ${words.map(shellQuote).join(' ')}`;
	};
	if (profileDir) mkdirSync(profileDir, {recursive: true});
	const measured = [
		[`many-node TUI 200×60, ${nodes} replayed nodes`, tmux.start(200, 60, viewer(cli, profileDir))],
		...(baseline ? [[`  baseline build's, same nodes`, tmux.start(200, 60, viewer(path.resolve(baseline), ''))]] : []),
		[
			'  same run: one-node TUI 200×60 (8 ranks, 8 GPUs)',
			tmux.start(200, 60, tuiCommand({cli, runDir, launcherPid: job.launcherPid})),
		],
	];
	console.log(`measuring ${durationS} s after ${WARMUP_S} s…`);
	await sleep(WARMUP_S * 1000);
	const before = measured.map(([, {pid}]) => cpuSeconds(pid));
	const t0 = performance.now();
	await sleep(durationS * 1000);
	const wallS = (performance.now() - t0) / 1000;
	const percent = measured.map(([, {pid}], i) => ((cpuSeconds(pid) - before[i]) / wallS) * 100);
	const connected = tmux.screen(measured[0][1].session).split('\n')[0] ?? '';
	console.log(`\n${'process'.padEnd(52)}CPU % of one core  peak RSS MB`);
	for (const [i, [name, {pid}]] of measured.entries()) {
		const rss = (statusKb(pid, 'VmHWM') / 1024).toFixed(1);
		console.log(`${name.padEnd(52)}${percent[i].toFixed(2).padStart(17)}  ${rss.padStart(11)}`);
	}
	console.log(`\n${connected.trim()}`);
	console.log(`many-node / one-node TUI: ${(percent[0] / percent.at(-1)).toFixed(2)} ×`);
	if (baseline) console.log(`this build / baseline viewer: ${(percent[0] / percent[1]).toFixed(2)} ×`);
	for (const [, {session}] of measured) tmux.keys(session, 'q');
	await sleep(3000);
} finally {
	tmux.close();
	await job.stop();
	rmSync(work, {recursive: true, force: true});
}

/** A real agent on the demo job: its hello and `seconds` snapshots, its node's name left as @HOST@ for the replay. */
function record(seconds) {
	const node = 'bench-replay-node';
	const agent = spawn(
		process.execPath,
		[cli, 'agent', '--node-name', node, runDir, '--interval', '1', '--pid', String(job.launcherPid)],
		{env: fakeGpuEnv(), stdio: ['pipe', 'pipe', 'inherit']},
	);
	const lines = [];
	let rest = '';
	return new Promise((resolve, reject) => {
		agent.on('error', reject);
		agent.stdout.on('data', chunk => {
			rest += chunk;
			for (let end = rest.indexOf('\n'); end >= 0; end = rest.indexOf('\n')) {
				lines.push(rest.slice(0, end).replaceAll(JSON.stringify(node), '"@HOST@"'));
				rest = rest.slice(end + 1);
			}
			if (lines.length > seconds) agent.stdin.end();
		});
		agent.on('exit', () => resolve(`${lines.slice(0, seconds + 1).join('\n')}\n`));
	});
}

#!/usr/bin/env node
// Many nodes on one screen at scale: a traintop watching N nodes (default 64) through a `traintop agent` each, every
// agent watching 8 ranks and 8 GPUs (the fake nvidia-smi) at 1 s — 512 ranks in all — measured side by side, in the
// same run, with the one-node TUI on one node's worth (the 8 ranks and 8 GPUs) and with htop:
//   - CPU % of one core and peak RSS of the viewer (not its agents: they are the nodes' cost, reported apart);
//   - a node's event to the viewer: an agent killed → its node shown lost (headless: the stderr line; TUI: the row
//     on the screen, read with tmux capture-pane every 20 ms), and back connected.
// Target: refresh ≤ 1 s; the many-node TUI within 1.3× the one-node TUI's cost.
//
//   npm run bench:fleet                       # 64 nodes, 30 s per viewer
//   node bench/fleet.mjs --nodes 16 --duration 20
//   node bench/fleet.mjs --shared-job --screen /tmp/fleet.txt   # every agent on one job; keep the TUI's screen
//   node bench/fleet.mjs --tui-only --profile /tmp/prof          # the TUI alone, with a CPU profile
//
// The "nodes" are agents on this machine (the ssh command is replaced, as GIT_SSH_COMMAND can be, by a script that
// runs the remote command here). Each node has its own simulated job, the demo job's 8 ranks (no data workers:
// 64 × 9 Python processes fit in a few GB) in its own run dir, and its agent watches only that job (`--pid`, added by
// the fake ssh with the node's run dir): 512 distinct ranks, as from 64 machines. `--shared-job` gives every agent
// the one-node job instead (8 ranks on this machine, for a small one). Needs a build, tmux and htop.

import {execFileSync, spawn} from 'node:child_process';
import {chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {argValue, commandExists, cpuSeconds, requireAll, sleep, statusKb} from './lib/proc.mjs';
import {fakeGpuEnv, root, startScenario, tuiCommand} from './lib/scenario.mjs';
import {shellQuote, TmuxServer} from './lib/tmux.mjs';

const cli = path.join(root, 'dist/cli.js');
const nodes = Number(argValue('--nodes', '64'));
const durationS = Number(argValue('--duration', '30'));
const sharedJob = process.argv.includes('--shared-job');
// `--profile DIR`: the TUI viewer writes a V8 CPU profile there when it quits (open it in Chrome's DevTools).
const profileDir = argValue('--profile', '');
const profileArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profileDir)] : [];
const tuiOnly = process.argv.includes('--tui-only');
const warmupS = 10;

requireAll('bench/fleet', [
	['a build (npm run build)', existsSync(cli)],
	['tmux', commandExists('tmux')],
	['htop (apt-get install htop)', commandExists('htop')],
]);

const work = mkdtempSync(path.join(tmpdir(), 'traintop-bench-fleet-'));
const bin = path.join(work, 'bin');
mkdirSync(bin);
writeFileSync(path.join(bin, 'traintop'), `#!/bin/sh\nexec ${process.execPath} ${cli} "$@"\n`);
const nodesDir = path.join(work, 'nodes');
mkdirSync(nodesDir);
// The fake ssh: drops ssh's options and the host, then runs the remote command here, with the node's own run dir and
// job (`--pid`) where it has one. Bash for the substitution.
writeFileSync(
	path.join(work, 'ssh'),
	[
		'#!/bin/bash',
		'while [ "$1" = "-l" ] || [ "$1" = "-o" ]; do shift 2; done',
		'host=$1; shift; cmd="$*"',
		`run=${shellQuote(path.join(work, 'run'))}; own=${shellQuote(nodesDir)}/$host`,
		// biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${var//pattern/replacement}, not a template
		'if [ -f "$own.pid" ]; then cmd="${cmd//"$run"/"$own"} --pid $(cat "$own.pid")"; fi',
		'exec sh -c "$cmd"',
		'',
	].join('\n'),
);
chmodSync(path.join(bin, 'traintop'), 0o755);
chmodSync(path.join(work, 'ssh'), 0o755);
const names = Array.from({length: nodes}, (_, i) => `node${String(i + 1).padStart(2, '0')}`);
// The agents' nvidia-smi: the fake one (a Node script, ~40 ms of CPU a start) for the memory loop, and for the
// one-shot GPU process query each agent makes every rank scan, its first answer kept and replayed by `cat`: 64
// agents starting Node 32 times a second would be this machine's cost of faking a GPU, not a node's or the viewer's.
const cache = path.join(work, 'nvidia-smi-cache');
mkdirSync(cache);
writeFileSync(
	path.join(bin, 'nvidia-smi'),
	[
		'#!/bin/sh',
		`fake=${shellQuote(path.join(root, 'test/helpers/fake-nvidia-smi/nvidia-smi'))}`,
		'case "$*" in *--query-compute-apps*) ;; *) exec "$fake" "$@" ;; esac',
		`kept=${shellQuote(cache)}/$(printf %s "$*" | cksum | cut -d' ' -f1)`,
		'[ -f "$kept" ] || { "$fake" "$@" > "$kept.$$" && mv "$kept.$$" "$kept"; }',
		'exec cat "$kept"',
		'',
	].join('\n'),
);
chmodSync(path.join(bin, 'nvidia-smi'), 0o755);
const env = fakeGpuEnv({PATH: `${bin}:${fakeGpuEnv().PATH}`});
const fleetArgs = ['--hosts', names.join(','), '--ssh-command', path.join(work, 'ssh'), '--interval', '1'];

/** The headless viewer while it runs (its agents go when it does). */
let headless = null;
/** Every demo job started, the one-node job first. */
const allJobs = [];
let tmux = null;
let cleaning = null;

/**
 * Stops everything this bench started, once: the viewers (each closes its agents: the headless one on SIGTERM, the
 * TUI on the SIGHUP of its tmux server), the tmux server, the demo jobs, the work dir. Run at the end, and on
 * SIGINT, SIGTERM or SIGHUP, as traintop itself does: a bench stopped halfway left its viewer, 64 agents, the demo
 * jobs and a tmux server running.
 */
function cleanup() {
	cleaning ??= (async () => {
		if (headless && headless.exitCode === null && headless.signalCode === null) {
			const gone = new Promise(resolve => headless.once('exit', resolve));
			headless.kill('SIGTERM');
			await gone;
		}
		tmux?.close();
		await Promise.all(allJobs.map(j => j.stop()));
		// The agents of the TUI viewer exit when it does (their stdin closes): wait for them before removing their files.
		for (let waited = 0; agentPids().length > 0 && waited < 10_000; waited += 200) await sleep(200);
		rmSync(work, {recursive: true, force: true});
	})();
	return cleaning;
}
for (const [name, number] of [
	['SIGINT', 2],
	['SIGTERM', 15],
	['SIGHUP', 1],
])
	process.on(name, () => {
		console.error(`bench/fleet: ${name}: stopping the viewers, agents, jobs and tmux server…`);
		void cleanup().then(() => process.exit(128 + number));
	});

const {runDir, job} = await startScenario(work);
allJobs.push(job);
const nodeJobs = [];
if (!sharedJob) {
	console.log(`starting ${nodes} demo jobs of 8 ranks, one per node…`);
	const t0 = performance.now();
	for (let i = 0; i < names.length; i += 8) {
		const batch = names.slice(i, i + 8);
		const started = await Promise.all(
			batch.map(name =>
				startScenario(nodesDir, {name, workers: 0, checkpoints: 20, stepSeconds: 2}).then(scenario => {
					writeFileSync(path.join(nodesDir, `${name}.pid`), String(scenario.job.launcherPid));
					return scenario.job;
				}),
			),
		);
		nodeJobs.push(...started);
		allJobs.push(...started);
	}
	console.log(`  ${nodeJobs.length * 8} ranks ready after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
/** The one-node TUI and htop, measured in the same run (started in the try below: a failure still cleans up). */
let peers = [];

/**
 * The agent processes: the children of the fake ssh's `sh -c traintop agent --node-name NAME …` (an agent's own
 * command line is its process title, `traintop`, cut to the length of node's original argv[0]).
 */
function agentPids(name = '') {
	const lines = pgrep(['-f', `^sh -c traintop agent --node-name ${name}`]);
	return lines.flatMap(shell => pgrep(['-P', String(shell)]));
}

function pgrep(args) {
	try {
		return execFileSync('pgrep', args, {encoding: 'utf8'}).trim().split('\n').map(Number);
	} catch {
		return [];
	}
}

const agentPid = name => agentPids(`${name} `)[0];

function agentsCost() {
	const pids = agentPids();
	// An agent may exit between pgrep and the read (a lost link on a loaded machine, then its reconnect): not counted.
	const cpu = pid => {
		try {
			return cpuSeconds(pid);
		} catch {
			return 0;
		}
	};
	return {count: pids.length, cpu: pids.reduce((sum, pid) => sum + cpu(pid), 0)};
}

/** What the viewer shows of a node now: the state word of the last line naming it with one (its row, its news). */
function shownState(text, name) {
	const named = new RegExp(`\\b${name}\\b.*\\b(connected|lost|stale|connecting|reconnecting)\\b`);
	const last =
		text
			.split('\n')
			.filter(line => named.test(line))
			.at(-1) ?? '';
	if (/\blost\b/.test(last)) return 'lost';
	if (/\b(connecting|reconnecting)\b/.test(last)) return 'connecting';
	if (/\bstale\b/.test(last)) return 'stale';
	return /\bconnected\b/.test(last) ? 'connected' : 'unknown';
}

/** Kills one node's agent and times its node shown lost, then connected again, in what `read()` shows. */
async function nodeEvent(name, viewer) {
	const pid = agentPid(name);
	// No agent of that node running now (it is reconnecting): nothing to kill, nothing to time.
	if (pid === undefined) return {lostMs: null, backMs: null};
	const t0 = performance.now();
	process.kill(pid, 'SIGKILL');
	let lostMs = null;
	let backMs = null;
	while (performance.now() - t0 < 20_000 && backMs === null) {
		const state = viewer.state(name);
		if (lostMs === null && state === 'lost') lostMs = performance.now() - t0;
		if (lostMs !== null && state === 'connected') backMs = performance.now() - t0;
		await sleep(20);
	}
	return {lostMs, backMs};
}

/**
 * The TUI's view of the links: its NODES title counts them (`64 nodes · 63 connected · 1 lost`), rows off the
 * screen included (64 rows do not fit: the pane shows those around the cursor and counts the rest).
 */
function titleState(screen) {
	const title = /^NODES \d+ nodes · (.*)$/m.exec(screen)?.[1] ?? '';
	const count = word => Number(new RegExp(`(\\d+) ${word}`).exec(title)?.[1] ?? 0);
	return {connected: count('connected'), lost: count('lost')};
}

/** Per viewer: how many nodes it shows connected, and one node's shown state. */
const headlessViewer = read => ({
	connected: () => names.filter(name => shownState(read(), name) === 'connected').length,
	state: name => shownState(read(), name),
});
const tuiViewer = read => ({
	connected: () => titleState(read()).connected,
	// One agent killed at a time: the title's lost count is that node's.
	state: () => {
		const {connected, lost} = titleState(read());
		return lost > 0 ? 'lost' : connected === nodes ? 'connected' : 'unknown';
	},
});

/** Waits until every node shows connected (64 agents loading on 2 cores take a while), then the warm-up. */
async function settle(viewer) {
	const t0 = performance.now();
	while (performance.now() - t0 < Number(process.env.SETTLE_MS ?? 240_000)) {
		if (viewer.connected() === nodes) break;
		await sleep(500);
	}
	console.log(
		`  ${viewer.connected()} of ${nodes} nodes connected after ${((performance.now() - t0) / 1000).toFixed(1)} s`,
	);
	await sleep(warmupS * 1000);
}

async function measure(label, pid, viewer) {
	await settle(viewer);
	const before = [pid, ...peers.map(p => p.pid)].map(cpuSeconds);
	const agentsBefore = agentsCost();
	const t0 = performance.now();
	await sleep(durationS * 1000);
	const wall = (performance.now() - t0) / 1000;
	const agentsAfter = agentsCost();
	const cpu = [pid, ...peers.map(p => p.pid)].map((p, i) => ((cpuSeconds(p) - before[i]) / wall) * 100);
	const events = [];
	for (const name of [names[Math.floor(nodes / 3)], names[nodes - 1]])
		events.push({name, ...(await nodeEvent(name, viewer))});
	return {
		label,
		cpu: cpu[0],
		hwm: statusKb(pid, 'VmHWM') / 1024,
		peers: peers.map((p, i) => ({label: p.label, cpu: cpu[i + 1], hwm: statusKb(p.pid, 'VmHWM') / 1024})),
		agents: {count: agentsAfter.count, cpu: ((agentsAfter.cpu - agentsBefore.cpu) / wall) * 100},
		events,
		wall,
	};
}

const results = [];
try {
	tmux = new TmuxServer('traintop-bench-fleet');
	peers = [
		{
			label: 'one-node TUI 200×60 (8 ranks, 8 GPUs)',
			...tmux.start(200, 60, tuiCommand({cli, runDir, launcherPid: job.launcherPid})),
		},
		{label: 'htop -d 10 (1 s refresh)', ...tmux.start(200, 60, 'exec htop -d 10')},
	];
	if (!tuiOnly) {
		// The headless viewer: its stderr (node lines) to a file the event timer reads.
		const errFile = path.join(work, 'headless.err');
		headless = spawn(
			process.execPath,
			[cli, '--headless', ...fleetArgs, '--log-file', path.join(work, 'mem.jsonl'), runDir],
			{stdio: ['ignore', 'ignore', 'pipe'], env: {...process.env, ...env}},
		);
		let err = '';
		headless.stderr.on('data', chunk => {
			err += chunk;
		});
		console.log(`headless viewer on ${nodes} nodes: measuring ${durationS} s after ${warmupS} s…`);
		results.push(
			await measure(
				`headless viewer, ${nodes} nodes`,
				headless.pid,
				headlessViewer(() => err),
			),
		);
		writeFileSync(errFile, err);
		const gone = new Promise(resolve => headless.once('exit', resolve));
		headless.kill('SIGTERM');
		await gone;
		headless = null;
	}

	const vars = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(String(v))}`);
	const command = [
		'exec env',
		...vars,
		...[process.execPath, ...profileArgs, cli, ...fleetArgs, '--no-log', runDir].map(shellQuote),
	].join(' ');
	const tui = tmux.start(200, 60, command);
	console.log(`TUI viewer on ${nodes} nodes (200×60): measuring ${durationS} s after ${warmupS} s…`);
	results.push(
		await measure(
			`TUI viewer 200×60, ${nodes} nodes`,
			tui.pid,
			tuiViewer(() => tmux.screen(tui.session)),
		),
	);
	// The screen as measured, for the record (`--screen FILE`): the rank rows of 64 jobs, as the note quotes.
	const screenFile = argValue('--screen', '');
	if (screenFile) writeFileSync(screenFile, tmux.screen(tui.session));
	tmux.keys(tui.session, 'q');
} finally {
	await cleanup();
}

const pad = (text, n) => String(text).padEnd(n);
console.log('');
console.log(`${pad('process', 44)}${'CPU % of one core'.padStart(18)}${'peak RSS MB'.padStart(13)}`);
for (const r of results) {
	console.log(`${pad(r.label, 44)}${r.cpu.toFixed(2).padStart(18)}${r.hwm.toFixed(1).padStart(13)}`);
	for (const p of r.peers)
		console.log(`${pad(`  same run: ${p.label}`, 44)}${p.cpu.toFixed(2).padStart(18)}${p.hwm.toFixed(1).padStart(13)}`);
	console.log(`${pad(`  its ${r.agents.count} agents together`, 44)}${r.agents.cpu.toFixed(2).padStart(18)}`);
	for (const e of r.events)
		console.log(
			`  ${e.name}'s agent killed: shown lost after ${e.lostMs === null ? 'never (20 s)' : `${Math.round(e.lostMs)} ms`}, connected again after ${e.backMs === null ? 'never (20 s)' : `${Math.round(e.backMs)} ms`}`,
		);
}
const tuiRow = results.find(r => r.label.startsWith('TUI'));
const oneNode = tuiRow?.peers[0];
if (tuiRow && oneNode) {
	const ratio = tuiRow.cpu / oneNode.cpu;
	console.log('');
	console.log(
		`${ratio <= 1.3 ? 'ok  ' : 'FAIL'} the ${nodes}-node TUI costs ${ratio.toFixed(2)}× the one-node TUI's CPU (target ≤ 1.3×)`,
	);
	const worst = Math.max(...results.flatMap(r => r.events.map(e => e.lostMs ?? Number.POSITIVE_INFINITY)));
	console.log(
		`${worst <= 1000 ? 'ok  ' : 'FAIL'} a node's event on screen within ${Math.round(worst)} ms (target ≤ 1 s)`,
	);
}

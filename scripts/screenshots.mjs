#!/usr/bin/env node
// Regenerates screenshots/*.svg: the built traintop in tmux beside the demo job, captured with
// `tmux capture-pane -e` and drawn as SVG (scripts/ansi-to-svg.mjs).
//
//   npm run build && npm run screenshots
//
// The machines this project is built on have no GPU: the GPU pane replays recorded real
// nvidia-smi outputs (test/fixtures/nvidia-smi, through the test double on PATH), and each image's
// caption in docs/tui.md or docs/many-nodes.md says which. Everything else is live: the demo job's 4 ranks (rank 3 has no
// SIGUSR1 handler), its checkpoints, this machine's RAM.

import {execFileSync} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {ansiToSvg} from './ansi-to-svg.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist/cli.js');
if (!existsSync(cli)) {
	console.error('screenshots: build first (npm run build)');
	process.exit(2);
}
const {startDemoJob} = await import(path.join(root, 'dist/demo/job.js'));
const fakeDir = path.join(root, 'test/helpers/fake-nvidia-smi');
const out = path.join(root, 'screenshots');
const socket = `traintop-shots-${randomUUID()}`;
const tmux = (...args) => execFileSync('tmux', ['-L', socket, ...args], {encoding: 'utf8'});
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

async function until(session, predicate, timeoutMs = 30_000) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const text = tmux('capture-pane', '-p', '-t', session);
		if (predicate(text)) return;
		if (Date.now() > deadline) throw new Error(`screen never matched:\n${text}`);
		await sleep(200);
	}
}

/** A new `columns` × `rows` tmux session running `command` (a shell line). */
function newSession(session, columns, rows, command) {
	tmux('new-session', '-d', '-s', session, '-x', String(columns), '-y', String(rows), command);
}

/** traintop on the demo job in a new `columns` × `rows` tmux session, with `env` and any extra arguments. */
function startTraintop(session, columns, rows, env, extra = '') {
	newSession(
		session,
		columns,
		rows,
		`env ${env} ${process.execPath} ${cli} ${dir} --pid ${job.launcherPid} --interval 0.5 --no-log ${extra}; sleep 30`,
	);
}

/** The session's screen as screenshots/NAME.svg. */
function shoot(session, name, columns, rows, title, note = '') {
	const screen = tmux('capture-pane', '-p', '-e', '-t', session);
	writeFileSync(path.join(out, `${name}.svg`), ansiToSvg(screen, {columns, rows, title}));
	console.log(`wrote screenshots/${name}.svg${note}`);
}

/** RAM percent as the last shot showed it: the chart shot sets its threshold just above it. */
let ramNow = 0;

/**
 * The history chart's story in one picture: RAM climbing (the demo's leaking rank) across a threshold set
 * 1.5 points above where it was, the saves marked on the time axis, the alert where it crossed.
 */
async function chartShot() {
	const session = 'chart';
	const threshold = (ramNow + 1.5).toFixed(1);
	// No GPU pane here: the RAM chart gets the rows (the 120×40 shot shows GPUs).
	const env = 'TERM=xterm-256color';
	startTraintop(session, 120, 40, env, `--nvidia-smi /nonexistent --ram-threshold ${threshold}`);
	// Crossed (the alert marked) with saves on the axis, then a few more seconds of climbing past it.
	await until(session, text => /^RAM .* CRIT/m.test(text) && /^ {4}└.*▲.*!/m.test(text), 120_000);
	// The whole run (w twice): traintop started a minute ago, so the climb spans the chart.
	tmux('send-keys', '-t', session, 'w', 'w');
	await until(session, text => /^HISTORY whole run/m.test(text));
	await sleep(8000);
	shoot(
		session,
		'chart-120x40',
		120,
		40,
		`traintop: RAM across --ram-threshold ${threshold}, the saves marked`,
		` (threshold ${threshold} %)`,
	);
	tmux('send-keys', '-t', session, 'q');
}

/**
 * The many-node screen: four "nodes" whose agents run here behind a replaced ssh (as GIT_SSH_COMMAND can be), each
 * watching the demo job under its own name with the 8 recorded TITAN X GPUs, and a fifth whose ssh is refused.
 */
async function fleetShot() {
	const bin = mkdtempSync(path.join(tmpdir(), 'traintop-shots-ssh-'));
	writeFileSync(path.join(bin, 'traintop'), `#!/bin/sh\nexec ${process.execPath} ${cli} "$@"\n`, {mode: 0o755});
	const ssh = path.join(bin, 'ssh');
	writeFileSync(
		ssh,
		[
			'#!/bin/sh',
			'while [ "$1" = "-l" ] || [ "$1" = "-o" ]; do shift 2; done',
			'host="$1"; shift',
			'if [ "$host" = gpu-node-5 ]; then echo "ssh: connect to host gpu-node-5 port 22: Connection refused" >&2; exit 255; fi',
			'exec sh -c "$*"',
			'',
		].join('\n'),
		{mode: 0o755},
	);
	const hosts = ['gpu-node-1', 'gpu-node-2', 'gpu-node-3', 'gpu-node-4', 'gpu-node-5'].join(',');
	const env = `PATH=${bin}:${fakeDir}:${process.env.PATH} FAKE_NVSMI_SCENARIO=issue-titanx-8gpu-noheader-nounits FAKE_NVSMI_FILL_MISSING=na TERM=xterm-256color`;
	const session = 'fleet';
	newSession(
		session,
		120,
		40,
		`env ${env} ${process.execPath} ${cli} ${dir} --hosts ${hosts} --ssh-command ${ssh} --interval 1 --no-log; sleep 30`,
	);
	await until(session, text => /NODES 5 nodes · 4 connected · 1 lost/.test(text) && /RANKS 16/.test(text), 90_000);
	// Some history, and the alerts of the GPUs near their threshold.
	await sleep(8_000);
	shoot(
		session,
		'fleet-120x40',
		120,
		40,
		'traintop: five nodes on one screen (--hosts)',
		' (4 agents here behind a replaced ssh, one refused; GPUs replayed)',
	);
	tmux('send-keys', '-t', session, 'q');
	rmSync(bin, {recursive: true, force: true});
}

const dir = mkdtempSync(path.join(tmpdir(), 'traintop-demo-'));
const job = await startDemoJob({
	runDir: dir,
	ranks: 4,
	stepSeconds: 0.1,
	saveEvery: 40,
	maxCheckpoints: 3,
	noUsr1Ranks: [3],
	// Fast enough that the chart shot's RAM climbs across a threshold set just above it within a minute.
	leakMbPerMin: 1500,
	leakRanks: [1],
});
try {
	await job.ranksReady();
	const shots = [
		{
			name: 'tui-120x40',
			columns: 120,
			rows: 40,
			scenario: 'issue-titanx-8gpu-noheader-nounits',
			confirm: true,
			detail: true,
			gpus: '8 × GeForce GTX TITAN X (recorded output of a real node, replayed)',
		},
		{
			name: 'tui-80x24',
			columns: 80,
			rows: 24,
			scenario: 'cap-linux-h100-80gb-hbm3-590.48.01',
			confirm: false,
			detail: false,
			gpus: 'an H100 80GB HBM3 (recorded output, replayed)',
		},
	];
	for (const shot of shots) {
		const session = shot.name;
		const env = `PATH=${fakeDir}:${process.env.PATH} FAKE_NVSMI_SCENARIO=${shot.scenario} FAKE_NVSMI_FILL_MISSING=na TERM=xterm-256color`;
		// --grace 120: a cloud's two-minute notice, so that the ranks pane's readiness line has a lead to judge.
		startTraintop(session, shot.columns, shot.rows, env, '--grace 120');
		await until(session, text => /RANKS 4/.test(text) && /step +\d+/.test(text) && /saves take/.test(text));
		// Some history for the sparklines, and a save or two on the timeline.
		await sleep(12_000);
		const size = `${shot.columns}x${shot.rows}`;
		shoot(
			session,
			shot.name,
			shot.columns,
			shot.rows,
			`traintop at ${shot.columns}×${shot.rows}`,
			` (GPU pane: ${shot.gpus})`,
		);
		if (shot.confirm) {
			tmux('send-keys', '-t', session, 's');
			await until(session, text => text.includes('Send SIGUSR1'));
			shoot(session, `confirm-${size}`, shot.columns, shot.rows, 'traintop: the save confirm box');
			tmux('send-keys', '-t', session, 'Escape');
			// Gone before the next key: an Escape followed at once by an arrow reads as Alt+arrow.
			await until(session, text => !text.includes('Send SIGUSR1'));
		}
		if (shot.detail) {
			// Rank 1, the leaking one: its RSS chart climbs.
			tmux('send-keys', '-t', session, 'Down', 'Enter');
			await until(session, text => /rank 1 · pid \d+/.test(text) && /command /.test(text));
			// A page down: its signals, its RSS climbing and its GPU memory per device.
			tmux('send-keys', '-t', session, 'PageDown');
			await until(session, text => /History \(\d+ scans/.test(text) && /GPU memory/.test(text));
			shoot(session, `detail-${size}`, shot.columns, shot.rows, "traintop: a rank's detail (Enter)");
			tmux('send-keys', '-t', session, 'Escape');
		}
		ramNow = Number(/^RAM .*? (\d+\.\d)% /m.exec(tmux('capture-pane', '-p', '-t', session))?.[1] ?? ramNow);
		tmux('send-keys', '-t', session, 'q');
	}
	await chartShot();
	await fleetShot();
} finally {
	try {
		tmux('kill-server');
	} catch {
		// gone
	}
	await job.stop();
	rmSync(dir, {recursive: true, force: true});
}

#!/usr/bin/env node
// Regenerates screenshots/*.svg: the built traintop in tmux beside the demo job, captured with
// `tmux capture-pane -e` and drawn as SVG (scripts/ansi-to-svg.mjs).
//
//   npm run build && npm run screenshots
//
// The machines this project is built on have no GPU: the GPU pane replays recorded real
// nvidia-smi outputs (test/fixtures/nvidia-smi, through the test double on PATH), and each image's
// caption in the README says which. Everything else is live: the demo job's 4 ranks (rank 3 has no
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

const dir = mkdtempSync(path.join(tmpdir(), 'traintop-demo-'));
const job = await startDemoJob({
	runDir: dir,
	ranks: 4,
	stepSeconds: 0.1,
	saveEvery: 40,
	maxCheckpoints: 3,
	noUsr1Ranks: [3],
	leakMbPerMin: 120,
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
			gpus: '8 × GeForce GTX TITAN X (recorded output of a real node, replayed)',
		},
		{
			name: 'tui-80x24',
			columns: 80,
			rows: 24,
			scenario: 'cap-linux-h100-80gb-hbm3-590.48.01',
			confirm: false,
			gpus: 'an H100 80GB HBM3 (recorded output, replayed)',
		},
	];
	for (const shot of shots) {
		const session = shot.name;
		const env = `PATH=${fakeDir}:${process.env.PATH} FAKE_NVSMI_SCENARIO=${shot.scenario} FAKE_NVSMI_FILL_MISSING=na TERM=xterm-256color`;
		tmux(
			'new-session',
			'-d',
			'-s',
			session,
			'-x',
			String(shot.columns),
			'-y',
			String(shot.rows),
			`env ${env} ${process.execPath} ${cli} ${dir} --pid ${job.launcherPid} --interval 0.5 --no-log; sleep 30`,
		);
		await until(session, text => /RANKS 4/.test(text) && /step +\d+/.test(text));
		// Some history for the sparklines, and a save or two on the timeline.
		await sleep(12_000);
		const capture = () => tmux('capture-pane', '-p', '-e', '-t', session);
		writeFileSync(
			path.join(out, `${shot.name}.svg`),
			ansiToSvg(capture(), {columns: shot.columns, rows: shot.rows, title: `traintop at ${shot.columns}×${shot.rows}`}),
		);
		console.log(`wrote screenshots/${shot.name}.svg (GPU pane: ${shot.gpus})`);
		if (shot.confirm) {
			tmux('send-keys', '-t', session, 's');
			await until(session, text => text.includes('Send SIGUSR1'));
			writeFileSync(
				path.join(out, `confirm-${shot.columns}x${shot.rows}.svg`),
				ansiToSvg(capture(), {columns: shot.columns, rows: shot.rows, title: 'traintop: the save confirm box'}),
			);
			console.log(`wrote screenshots/confirm-${shot.columns}x${shot.rows}.svg`);
			tmux('send-keys', '-t', session, 'Escape');
		}
		tmux('send-keys', '-t', session, 'q');
	}
} finally {
	try {
		tmux('kill-server');
	} catch {
		// gone
	}
	await job.stop();
	rmSync(dir, {recursive: true, force: true});
}

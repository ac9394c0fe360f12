import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {PROTOCOL} from '../../src/agent/protocol.js';
import {wireSnapshot} from '../../src/agent/wire-snapshot.js';
import type {Snapshot} from '../../src/core/types.js';
import {CLI} from '../helpers/dist.js';
import {fleetNodesForThisFile} from '../helpers/fleet-nodes.js';
import {ownedByTest} from '../helpers/owned-by-test.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';
import {Terminal} from '../helpers/tmux.js';
import {checkpoint, checkpointIndex, job, jobSet, rank, status} from '../ui/fixtures.js';
import {snapshotOf} from '../ui/fleet/fleet-fixtures.js';

// An agent is input from another machine. Here something answers in node1's agent's place (through the replaceable
// ssh command) and sends what a broken or hostile agent could: terminal escapes in every string the views show
// (its version, job ids, rank states, metric names, checkpoint kinds, errors, its stderr), a time no clock has, a
// line that never ends. The viewer shows the escapes as inert text, drops the link with a message, reconnects,
// and never dies with a stack trace.

const nodes = fleetNodesForThisFile('traintop-hostile-agent-');
const owned = ownedByTest();

/** `\e]0;PWN-<what>\a\e[2J`: retitles the terminal, then clears it, wherever it reaches one raw. */
const pwn = (what: string) => `\u001b]0;PWN-${what}\u0007\u001b[2J`;

function hello(extra: object = {}): string {
	const message = {
		kind: 'hello',
		protocol: PROTOCOL,
		host: 'node1',
		version: `1.0.0${pwn('VERSION')}`,
		pid: 4242,
		clock: Date.now(),
		interval_ms: 500,
		run_dir: null,
		...extra,
	};
	return JSON.stringify(message);
}

function snapshotLine(fields: Partial<Snapshot> = {}, time = Date.now()): string {
	const id = `torchrun:9999${pwn('JOB')}`;
	const ranks = jobSet([job(id, [rank(0, {state: `S${pwn('STATE')}`}), rank(1)])]);
	const snapshot = snapshotOf('node1', time, {
		ranks,
		ranksError: `scan failed${pwn('RANKS-ERROR')}`,
		memoryError: `meminfo${pwn('MEMORY-ERROR')}`,
		metrics: {[`ram${pwn('METRIC')}`]: status(42, 'ok', 90)},
		checkpoints: checkpointIndex({
			checkpoints: [checkpoint(500, 30, {kind: `periodic${pwn('KIND')}` as 'periodic', retention: 'keep'})],
		}),
		events: [
			{time, kind: 'rank-stopped', job: id, rank: 0, pid: 10_000, level: 'warn', text: `stopped${pwn('EVENT')}`},
		],
		...fields,
	});
	return JSON.stringify({kind: 'snapshot', host: 'node1', snapshot: wireSnapshot(snapshot, null)});
}

/**
 * node1's "agent": its pid in a file, these lines on stdout; then, once the test makes the file `<name>.go`, a line
 * on stderr and exit 3 (the link ends with its stderr as why). Without `stderr` it waits for its stdin's EOF.
 */
function agentInstead(name: string, stdout: string[], stderr = ''): string {
	const file = path.join(nodes.dir, `${name}.lines`);
	writeFileSync(file, stdout.map(line => `${line}\n`).join(''));
	const head = `echo $$ > ${path.join(nodes.dir, `${name}.pid`)}; cat ${file}`;
	if (stderr === '') return `${head}; exec cat >/dev/null`;
	const stderrFile = path.join(nodes.dir, `${name}.stderr`);
	writeFileSync(stderrFile, `${stderr}\n`);
	const go = path.join(nodes.dir, `${name}.go`);
	return `${head}; while [ ! -e ${go} ]; do sleep 0.1; done; rm -f ${go}; cat ${stderrFile} >&2; exit 3`;
}

const startViewer = (instead: string, extra: readonly string[] = []): CliRun =>
	startCli(
		[
			'--headless',
			'--hosts',
			'node1',
			'--ssh-command',
			nodes.ssh,
			'--interval',
			'0.5',
			'--log-interval',
			'1',
			'--nvidia-smi',
			'/nonexistent',
			...extra,
		],
		{env: {PATH: nodes.path, FAKE_AGENT_node1: instead}},
	);

/** BEL, ESC, and the 8-bit CSI and OSC: none may reach the output raw. */
const rawControls = (text: string): string[] =>
	[...text].filter(c => [0x07, 0x1b, 0x9b, 0x9d].includes(c.charCodeAt(0)));

describe('a hostile agent', () => {
	it('a snapshot with "time": 1e300: the link is dropped with a message and made again; no stack trace', async () => {
		const instead = agentInstead('time', [hello(), snapshotLine({}, 1e300)]);
		const r = owned.run(startViewer(instead, ['--no-log']));
		// Dropped twice: the second after a reconnect.
		await r.waitFor(
			o =>
				(o.stderr.match(/node node1 lost: agent sent an agent message with a value out of range/g) ?? []).length >= 2,
			30_000,
		);
		expect(r.stderr()).toMatch(/snapshot\.time = 1e\+300 is not a time \(epoch ms\): dropped the connection/);
		r.child.kill('SIGTERM');
		expect(await r.exited).toBe(0);
		expect(r.stderr()).not.toMatch(/RangeError| {4}at /);
	}, 60_000);

	it('a line of 17 MiB without a newline: the link is dropped with a message, the viewer lives on', async () => {
		const instead = `${agentInstead('flood', [hello()])}`.replace(
			'exec cat >/dev/null',
			"head -c 17825792 /dev/zero | tr '\\0' x; exec cat >/dev/null",
		);
		const r = owned.run(startViewer(instead, ['--no-log']));
		await r.waitFor(
			o => /node node1 lost: agent sent a line over 16 MiB without a newline: dropped the connection/.test(o.stderr),
			60_000,
		);
		r.child.kill('SIGTERM');
		expect(await r.exited).toBe(0);
	}, 90_000);

	it('headless: no escape from any agent field reaches stdout or stderr raw; each is shown as text', async () => {
		const error = JSON.stringify({kind: 'error', host: 'node1', message: `bad${pwn('ERROR')}`});
		const lines = [hello(), snapshotLine(), error, `banner${pwn('GARBAGE')}`];
		const instead = agentInstead('esc', lines, `ssh: oops${pwn('STDERR')}`);
		for (const json of [false, true]) {
			const r = owned.run(startViewer(instead, json ? ['--json', '--no-log'] : ['--no-log']));
			await r.waitFor(o => /ranks: /.test(o.stderr) && /node node1 connected/.test(o.stderr), 30_000);
			// Its stderr is said when its link ends.
			writeFileSync(path.join(nodes.dir, 'esc.go'), '');
			await r.waitFor(o => /node node1 lost: /.test(o.stderr), 30_000);
			r.child.kill('SIGTERM');
			expect(await r.exited).toBe(0);
			const out = r.stdout() + r.stderr();
			expect(rawControls(out)).toEqual([]);
			const shown = (what: string) => `\\e]0;PWN-${what}\\x07\\e[2J`;
			for (const what of ['VERSION', 'EVENT', 'STDERR']) expect(r.stderr()).toContain(shown(what));
			expect(r.stderr()).toContain(`lost: agent exited 3: ssh: oops${shown('STDERR')}; reconnecting`);
			// --json: the job's id in each event record, its escapes as text (JSON would carry a raw one as \u001b).
			if (json) {
				expect(r.stdout()).toContain(`"job":"torchrun:9999${shown('JOB').replaceAll('\\', '\\\\')}"`);
				expect(r.stdout()).not.toMatch(/\\u00(1b|07|9b|9d)/i);
			}
		}
	}, 120_000);

	it('the many-node TUI: the pane title is unchanged while and after it shows every field', async () => {
		const error = JSON.stringify({kind: 'error', host: 'node1', message: `bad${pwn('ERROR')}`});
		const instead = agentInstead('tui', [hello(), snapshotLine(), error], `ssh: oops${pwn('STDERR')}`);
		const t = owned.term(new Terminal(160, 50));
		t.keys(`PS1='$ '; printf '\\033]0;%s\\007' title-before; echo shell-before-traintop`, 'Enter');
		// The echo's own output line, not the command line as typed (which shows the word before the shell has run it,
		// and so before printf has set the title).
		await t.until(text => /^shell-before-traintop$/m.test(text));
		const title = () => t.tmux('display-message', '-p', '#{pane_title}').trim();
		expect(title()).toBe('title-before');
		const flags = `--hosts node1 --ssh-command ${nodes.ssh} --interval 0.5 --nvidia-smi /nonexistent --no-log`;
		t.keys(
			`env PATH=${nodes.path} FAKE_AGENT_node1='${instead}' ${process.execPath} ${CLI} ${flags}; echo "EXIT=$?"`,
			'Enter',
		);
		await t.until(text => /\\e\]0;PWN-JOB/.test(text), 'the job id shown as text', 30_000);
		expect(title()).toBe('title-before');
		// node1's own view: its ranks, states, checkpoints, metrics.
		t.keys('Enter');
		const own = await t.until(text => /^NODE node1/m.test(text), "node1's own view", 15_000);
		// Each field as text, escapes and all, where the screen shows it.
		for (const what of ['VERSION', 'MEMORY-ERROR', 'JOB', 'RANKS-ERROR', 'STATE', 'KIND', 'EVENT'])
			expect(own).toContain(`\\e]0;PWN-${what}\\x07\\e[2J`);
		expect(title()).toBe('title-before');
		writeFileSync(path.join(nodes.dir, 'tui.go'), '');
		await t.until(text => /PWN-STDERR/.test(text), 'node1 lost, with its stderr as text', 30_000);
		expect(title()).toBe('title-before');
		t.keys('Escape');
		await t.until(text => /^NODES /m.test(text), 'back to the nodes');
		t.keys('q');
		const after = await t.until(text => /^EXIT=\d+/m.test(text), 'traintop to exit');
		expect(after).toContain('EXIT=0');
		expect(after).toContain('shell-before-traintop');
		expect(title()).toBe('title-before');
	}, 120_000);
});

import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, expect, test} from 'vitest';
import type {DemoJob} from '../../src/demo/job.js';
import {CLI} from '../helpers/dist.js';
import {fleetNodes} from '../helpers/fleet-nodes.js';
import {type RankLauncher, startRankLauncher} from '../helpers/rank-launcher.js';
import {reason, verdictSeen} from '../helpers/readiness-events.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';
import {startSmallJob} from '../helpers/small-demo-job.js';
import {Terminal} from '../helpers/tmux.js';

// Readiness across nodes: each node's agent judges its own jobs (with the viewer's --grace, passed on) and sends the
// verdict in its snapshots; the viewer's headless stream says each node's, and the many-node screen's ranks pane the
// worst. node1 runs the demo job (its ranks handle SIGTERM; no save yet), node2 a rank that would die of SIGTERM.

const nodes = fleetNodes('traintop-ready-agents-');
let dir = '';
let demo: DemoJob | null = null;
let launcher: RankLauncher | null = null;
let sleeperPid = 0;
let run: CliRun | null = null;
let term: Terminal | null = null;

beforeAll(async () => {
	dir = mkdtempSync(path.join(tmpdir(), 'traintop-ready-agents-run-'));
	demo = await startSmallJob(path.join(dir, 'run1'), 29_741);
	launcher = startRankLauncher(dir);
	const sleeper = ['python3', '-c', 'import time; time.sleep(600)', `tt-ready-agents-${process.pid}`];
	const rank = await launcher.launch(sleeper, {PATH: process.env.PATH ?? '/usr/bin:/bin', RANK: '0', WORLD_SIZE: '1'});
	sleeperPid = rank.pid;
}, 60_000);

afterAll(async () => {
	await demo?.stop();
	await launcher?.stop();
	rmSync(dir, {recursive: true, force: true});
	rmSync(nodes.dir, {recursive: true, force: true});
});

afterEach(() => {
	run?.child.kill('SIGKILL');
	run = null;
	term?.close();
	term = null;
});

const env = () => ({
	PATH: nodes.path,
	FAKE_ARGS_node1: `--pid ${demo!.launcherPid}`,
	FAKE_ARGS_node2: `--pid ${sleeperPid}`,
});
const flags = () => ['--hosts', 'node1,node2', '--ssh-command', nodes.ssh, '--interval', '0.5', '--no-log'];

test('each node judges its own jobs with the --grace given here; the headless stream names the node', async () => {
	run = startCli(['--headless', '--json', ...flags(), '--nvidia-smi', '/nonexistent', '--grace', '45'], {env: env()});
	const atNode1 = await verdictSeen(run, 'unknown', 60_000, e => (e as {host?: string}).host === 'node1');
	expect(atNode1).toMatchObject({signal: 'SIGTERM', lead_s: 45, lead_from: 'grace'});
	expect(reason(atNode1, 'handlers')).toMatchObject({count: 2});
	expect(reason(atNode1, 'no-save-seen')).toBeDefined();
	const atNode2 = await verdictSeen(run, 'not-ready', 60_000, e => (e as {host?: string}).host === 'node2');
	expect(reason(atNode2, 'no-handler')).toMatchObject({pid: sleeperPid, rank: 0});
	// Its line on stderr, a pipe of its own, read in its own time.
	const line = new RegExp(`node2 readiness \\S+: not-ready — rank 0 \\(pid ${sleeperPid}\\) has no SIGTERM handler`);
	await run.waitFor(o => line.test(o.stderr), 30_000);
}, 90_000);

test("the many-node screen's ranks pane: a readiness line under each node's job", async () => {
	term = new Terminal(140, 40);
	const line = Object.entries(env())
		.map(([k, v]) => `${k}='${v}'`)
		.join(' ');
	term.keys(
		`env ${line} ${process.execPath} ${CLI} ${flags().join(' ')} --nvidia-smi /nonexistent --grace 45; echo "EXIT=$?"`,
		'Enter',
	);
	const screen = await term.until(
		s =>
			/if preempted: NOT-READY — rank 0 \(pid \d+\) has no SIGTERM handler/.test(s) &&
			/if preempted: UNKNOWN — no complete save seen yet/.test(s),
		'both jobs judged on the many-node screen',
		60_000,
	);
	expect(screen).toContain(`(pid ${sleeperPid}) has no SIGTERM handler`);
	term.keys('q');
	await term.until(s => /^EXIT=0/m.test(s), 'the TUI to quit');
}, 90_000);

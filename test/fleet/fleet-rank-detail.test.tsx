import {readFileSync, readlinkSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {cleanup, render} from 'ink-testing-library';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import type {DemoJob} from '../../src/demo/job.js';
import {Fleet, type FleetConnection} from '../../src/fleet/fleet.js';
import {nodeActions} from '../../src/fleet/node-actions.js';
import App from '../../src/ui/app.js';
import {fleetJobActions} from '../../src/ui/fleet/fleet-job-actions.js';
import {type FleetTuiSession, fleetTuiSession} from '../../src/ui/fleet/fleet-tui-session.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {press, pressFrom, untilFrame} from '../helpers/ink.js';
import {startSmallJob} from '../helpers/small-demo-job.js';

// Enter on a rank in a node's view of the many-node screen: the real Fleet, real agents (the built binary, beside a
// real demo job, as ssh would start them on the node), the real node actions, the screen rendered by Ink. The
// detail is the node's /proc as its agent read it; an agent that does not answer leaves the last scan, said so.

const ENTER = '\r';
const ESC = '\u001B';
const DOWN = '\u001B[B';

let dir = '';
let job: DemoJob | null = null;
let fleet: Fleet | null = null;
let tui: FleetTuiSession | null = null;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-fleet-detail-'));
});
afterEach(async () => {
	cleanup();
	tui?.close();
	await fleet?.close();
	await job?.stop();
	tui = null;
	fleet = null;
	job = null;
	await rm(dir, {recursive: true, force: true});
});

/** `traintop agent` for the demo job, named `node`. */
function agentArgv(node: string, launcherPid: number, runDir: string): string[] {
	requireBuild();
	const flags = ['--interval', '0.2', '--ranks-interval', '0.5', '--nvidia-smi', '/nonexistent'];
	return [process.execPath, CLI, 'agent', runDir, '--pid', String(launcherPid), '--node-name', node, ...flags];
}

/** The same agent behind a link that loses every detail command on the way (signals and snapshots still pass). */
function deafToDetails(argv: readonly string[]): string[] {
	return ['sh', '-c', 'grep --line-buffered -v \'"kind":"detail"\' | exec "$0" "$@"', ...argv];
}

describe("a rank's detail in a node's view, through its agent", () => {
	test('Enter on a rank: its exact argv, cwd and RANK from the node; an agent that does not answer: the last scan, said so', async () => {
		job = await startSmallJob(path.join(dir, 'run'), 29_871);
		const pids = await job.ranksReady();
		const argv = agentArgv('node1', job.launcherPid, job.runDir);
		const connections: FleetConnection[] = [
			{nodes: ['node1'], argv},
			{nodes: ['node2'], argv: deafToDetails(agentArgv('node2', job.launcherPid, job.runDir))},
		];
		const settings = DEFAULT_SETTINGS;
		const running = new Fleet({connections, intervalMs: 200});
		fleet = running;
		tui = fleetTuiSession(running, {
			settings,
			recorders: new Map(),
			// node2's agent never answers: 1 s, not 5, before its last scan is shown. node1's may take its time (a
			// loaded machine): what is tested there is its answer, not the bound.
			actions: (node, logPath) =>
				nodeActions({fleet: running, node, settings, logPath, detailTimeoutMs: node === 'node2' ? 1000 : 20_000}),
			jobActions: fleetJobActions(running, settings),
			start: () => running.start(),
		});
		const {lastFrame, stdin, stdout} = render(<App fleet={tui} />);
		Object.defineProperty(stdout, 'columns', {value: 120, configurable: true});
		Object.defineProperty(stdout, 'rows', {value: 40, configurable: true});
		stdout.emit('resize');
		tui.start();
		await untilFrame(lastFrame, f => /^RANKS 4 /m.test(f) && /^› node1 +\S+ +connected/m.test(f), 30_000);

		// node1's view, then the detail of its first rank (rank 0): what the kernel on that node says of it.
		const onNodes = (f: string) => /^NODES /m.test(f);
		const inNode = (name: string) => (f: string) =>
			/^NODE /m.test(f) && !/Launch variables/.test(f) && f.includes(`NODE ${name}`);
		await pressFrom(stdin, ENTER, lastFrame, onNodes, f => inNode('node1')(f) && /^RANKS 2 /m.test(f));
		const rank0 = pids.get(0)!;
		const cwd = readlinkSync(`/proc/${rank0}/cwd`);
		const script = readFileSync(`/proc/${rank0}/cmdline`, 'utf8')
			.split('\0')
			.find(arg => arg.endsWith('rank.py'))!;
		const opened = (f: string) => /Launch variables/.test(f) && /RANK +0/.test(f);
		const detail = await pressFrom(stdin, ENTER, lastFrame, inNode('node1'), opened, 25_000);
		const text = detail.replace(/\s+/g, ' ');
		expect(detail).toMatch(new RegExp(`rank 0 · pid ${rank0} · job `));
		expect(text).toContain(script);
		expect(text).toContain(`cwd ${cwd}`);
		expect(detail).toMatch(/^\W*RANK +0\b/m);
		expect(detail).not.toMatch(/the last scan's/);
		expect(detail).not.toMatch(/showing its last scan/);

		// Back to the nodes, into node2, whose agent never hears a detail command: after 1 s, the scan, with why.
		await press(stdin, ESC);
		await untilFrame(lastFrame, f => !/Launch variables/.test(f) && /^NODE node1/m.test(f));
		await press(stdin, ESC);
		await untilFrame(lastFrame, f => /^NODES /m.test(f));
		await press(stdin, DOWN);
		await pressFrom(stdin, ENTER, lastFrame, onNodes, f => inNode('node2')(f) && /^RANKS 2 /m.test(f));
		const askedAt = Date.now();
		const scan = await pressFrom(stdin, ENTER, lastFrame, inNode('node2'), f => /showing its last scan/.test(f));
		expect(Date.now() - askedAt).toBeGreaterThanOrEqual(900);
		expect(scan.replace(/\s+/g, ' ')).toContain(
			`pid ${rank0} on node2: its agent did not answer in 1 s; showing its last scan`,
		);
		expect(scan).toMatch(/the last scan's, split at blanks/);
		expect(scan).toMatch(/not in the last scan: its node's agent reads them/);
	}, 60_000);
});

// No nvidia-smi may outlive traintop, however traintop ends. A host process (test/helpers/gpu-reader-host/host.mjs)
// runs the reader on the fake; each test ends the host one way and then looks for survivors among the pids the fake
// logged (its own and its grandchild's).

import {spawn, type ChildProcess} from 'node:child_process';
import {existsSync} from 'node:fs';
import {join} from 'node:path';
import {createInterface} from 'node:readline';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {DIST, ROOT, requireBuild} from '../helpers/dist.js';
import {
	fakeEnv,
	fakeRuns,
	isAlive,
	killAll,
	readInvocations,
	removeTempDirs,
	tempDir,
	waitFor,
	type Knobs,
} from '../helpers/fake-nvidia-smi/harness.js';

const HOST_SCRIPT = join(ROOT, 'test/helpers/gpu-reader-host/host.mjs');
/** What host.mjs imports: the built reader, not the TypeScript source. */
const BUILT_READER = join(DIST, 'system/nvidia-smi.js');
const H100 = 'cap-linux-h100-80gb-hbm3-590.48.01';
const INTERVAL_MS = 100;

beforeAll(() => {
	requireBuild();
	if (!existsSync(BUILT_READER))
		throw new Error(`${BUILT_READER} is missing: run \`npm run build\` (npm test does it first)`);
});

interface Host {
	child: ChildProcess;
	log: string;
	output: string[];
	exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>;
}

const hosts: Host[] = [];

afterAll(removeTempDirs);

function startHost(knobs: Knobs): Host {
	const log = join(tempDir(), 'log.jsonl');
	const child = spawn(process.execPath, [HOST_SCRIPT], {
		env: fakeEnv({FAKE_NVSMI_LOG: log, HOST_INTERVAL_MS: String(INTERVAL_MS), ...knobs}),
		stdio: ['pipe', 'pipe', 'inherit'],
	});
	const output: string[] = [];
	createInterface({input: child.stdout!}).on('line', line => output.push(line));
	const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>(resolve =>
		child.once('exit', (code, signal) => resolve({code, signal})),
	);
	const host = {child, log, output, exited};
	hosts.push(host);
	return host;
}

function loggedPids(host: Host): number[] {
	return readInvocations(host.log).map(entry => entry.pid);
}

afterEach(() => {
	for (const host of hosts.splice(0)) {
		host.child.kill('SIGKILL');
		killAll(loggedPids(host).filter(isAlive));
	}
});

/** Waits until the host's reader runs the loop, a compute-apps one-shot (when asked) and, in hang-orphan mode, the grandchild. */
async function whenRunning(host: Host, {grandchild = false, oneShot = false} = {}): Promise<void> {
	await waitFor(
		() =>
			fakeRuns(host.log, '--query-gpu').length > 0 &&
			(!oneShot || fakeRuns(host.log, '--query-compute-apps').length > 0) &&
			(!grandchild || readInvocations(host.log).some(entry => entry.role === 'grandchild')),
		'the host to be running nvidia-smi',
	);
}

async function expectAllDead(host: Host, withinMs: number): Promise<void> {
	const pids = loggedPids(host);
	expect(pids.length).toBeGreaterThan(0);
	await waitFor(() => pids.every(pid => !isAlive(pid)), `pids ${pids.join(', ')} to be dead`, withinMs, 5);
}

describe('nothing survives traintop', () => {
	it('graceful stop(): the host exits by itself afterwards, with every nvidia-smi gone', async () => {
		const host = startHost({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_FRAME: '2', HOST_PROCESS_INTERVAL_MS: '50'});
		await whenRunning(host, {oneShot: true});
		host.child.stdin!.write('stop\n');
		// No process.exit in the host: it ends only if stop() left no child, pipe or timer behind.
		expect(await host.exited).toEqual({code: 0, signal: null});
		expect(host.output).toContain('stopped');
		await expectAllDead(host, 200);
	});

	it('SIGTERM to traintop: the signal handler stops the reader; a hung nvidia-smi and its grandchild die', async () => {
		const host = startHost({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'hang-orphan'});
		await whenRunning(host, {grandchild: true});
		host.child.kill('SIGTERM');
		expect(await host.exited).toEqual({code: 143, signal: null});
		await expectAllDead(host, 2_000);
	});

	it("process.exit(): the 'exit' hook SIGKILLs the groups, even of an nvidia-smi that ignores SIGTERM", async () => {
		const host = startHost({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'hang-orphan', FAKE_NVSMI_IGNORE_TERM: '1'});
		await whenRunning(host, {grandchild: true});
		host.child.stdin!.write('exit\n');
		expect(await host.exited).toEqual({code: 0, signal: null});
		await expectAllDead(host, 1_000);
	});

	it('SIGKILL of traintop: the loop dies at its next write (broken pipe), one-shots end by themselves', async () => {
		const host = startHost({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_FRAME: '2', HOST_PROCESS_INTERVAL_MS: '50'});
		await whenRunning(host, {oneShot: true});
		await waitFor(() => host.output.includes('state ok'), 'samples');
		const [loop] = fakeRuns(host.log, '--query-gpu');
		expect(isAlive(loop!.pid)).toBe(true);
		host.child.kill('SIGKILL');
		await host.exited;
		// Nothing of ours runs any more: only the broken pipe can end the loop (the wait gives it ten intervals).
		await expectAllDead(host, 10 * INTERVAL_MS);
	});

	it('SIGKILL of traintop while nvidia-smi hangs: the hung loop and its grandchild are killed within seconds', async () => {
		// A hung loop never writes, so no broken pipe can end it: only something that outlives traintop can.
		const host = startHost({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'hang-orphan', FAKE_NVSMI_IGNORE_TERM: '1'});
		await whenRunning(host, {grandchild: true});
		host.child.kill('SIGKILL');
		await host.exited;
		await expectAllDead(host, 3_000);
	});

	it('SIGKILL of traintop while a compute-apps one-shot hangs: the one-shot is killed within seconds', async () => {
		const host = startHost({
			FAKE_NVSMI_SCENARIO: H100,
			FAKE_NVSMI_MODE: 'hang',
			FAKE_NVSMI_KNOBS_FOR: 'query-compute-apps',
			HOST_PROCESS_INTERVAL_MS: '50',
		});
		await whenRunning(host, {oneShot: true});
		const [oneShot] = fakeRuns(host.log, '--query-compute-apps');
		host.child.kill('SIGKILL');
		await host.exited;
		// Its own limit is 10 s; traintop's death must end it well before.
		await waitFor(() => !isAlive(oneShot!.pid), 'the hung one-shot to die', 3_000);
		await expectAllDead(host, 3_000);
	});
});

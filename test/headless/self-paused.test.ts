import {readFileSync} from 'node:fs';
import {afterEach, expect, test} from 'vitest';
import {
	fakeEnv,
	isAlive,
	killAll,
	readInvocations,
	removeTempDirs,
	tempDir,
} from '../helpers/fake-nvidia-smi/harness.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';
import {until} from '../helpers/until.js';

// traintop itself stopped (SIGSTOP, Ctrl-Z in a job's shell, a suspended machine) and continued: nvidia-smi, which
// went on sampling meanwhile, is not to blame for the gap. traintop says it was paused itself, and the GPU stays ok.

const H100 = 'cap-linux-h100-80gb-hbm3-590.48.01';
/** Longer than the GPU loop's staleness window (5 s at the least): before the fix, long enough to blame nvidia-smi. */
const PAUSE_MS = 9_000;

let run: CliRun | null = null;
let calls = '';
afterEach(() => {
	if (run) {
		run.child.kill('SIGCONT');
		run.child.kill('SIGKILL');
	}
	run = null;
	if (calls !== '')
		killAll(
			readInvocations(calls)
				.map(entry => entry.pid)
				.filter(isAlive),
		);
	removeTempDirs();
});

/** The process's state letter from /proc (`T` stopped, `S` sleeping…). */
const stateOf = (pid: number): string => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] ?? '?';

type Line = {event?: string; gpu_status?: string};
const records = (stdout: string): Line[] =>
	stdout
		.split('\n')
		.filter(line => line.startsWith('{'))
		.map(line => JSON.parse(line) as Line);

test('SIGSTOP then SIGCONT of traintop: "traintop itself was paused", never "nvidia-smi stopped answering"', async () => {
	calls = `${tempDir()}/calls.jsonl`;
	const args = ['--headless', '--json', '--no-log', '--interval', '0.5', '--log-interval', '0.5'];
	run = startCli([...args, '--match', 'no-such-job-[0-9]{40}'], {
		env: fakeEnv({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_LOG: calls}),
	});
	const child = run.child;
	await run.waitFor(o => records(o.stdout).filter(r => r.gpu_status === 'ok').length >= 2, 30_000);

	child.kill('SIGSTOP');
	await until(
		() => stateOf(child.pid ?? 0),
		state => state === 'T',
		'traintop stopped',
		10_000,
	);
	// The pause is the input here: it must outlast the GPU loop's staleness window. Its end is the clock's, nothing
	// else's (traintop cannot say anything while it is stopped).
	const stoppedAt = Date.now();
	await until(
		() => Date.now() - stoppedAt,
		elapsed => elapsed >= PAUSE_MS,
		'the pause',
		PAUSE_MS + 5_000,
		250,
	);
	child.kill('SIGCONT');

	await run.waitFor(o => /traintop itself was paused for \d+ s/.test(o.stderr), 30_000);
	const after = run.stdout().length;
	// Samples go on after it, the GPU still answering: later records carry it.
	await run.waitFor(o => records(o.stdout.slice(after)).filter(r => r.gpu_status === 'ok').length >= 2, 30_000);
	expect(run.stderr()).toMatch(
		/traintop itself was paused for \d+ s \(stopped — SIGSTOP, Ctrl-Z —, a suspended machine, or its event loop blocked\): nothing was sampled meanwhile/,
	);
	expect(run.stderr()).not.toMatch(/nvidia-smi stopped answering|nvidia-smi failed/);
	expect(records(run.stdout()).filter(r => r.gpu_status !== undefined && r.gpu_status !== 'ok')).toEqual([]);
}, 90_000);

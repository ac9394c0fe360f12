import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {fakeEnv, killAll, readInvocations} from '../helpers/fake-nvidia-smi/harness.js';
import {runCli, startCli} from '../helpers/run-cli.js';

// The built CLI, headless, with the fake nvidia-smi replaying the gpustat#5 recording: eight TITAN X, GPU 2 and
// GPU 3 both at 52.8 % (6442 of 12206 MiB). A threshold of 55 % for GPU 2 alone (by its uuid) makes it WARN;
// GPU 3, at the same percent, stays ok under the global 90 %.

const EIGHT_GPUS = 'issue-titanx-8gpu-noheader-nounits';
const GPU2 = 'GPU-2090c509-a97a-e2fe-68f4-cf9e874c36f2';
const FAST = ['--interval', '0.1', '--log-interval', '0.5', '--gpu-process-interval', '0', '--no-log'];

let dir: string;
let calls: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-gpu-thresholds-cli-'));
	calls = path.join(dir, 'nvidia-smi-calls.jsonl');
});
afterEach(async () => {
	killAll(readInvocations(calls).map(entry => entry.pid));
	await rm(dir, {recursive: true, force: true});
});

async function statusLine(args: readonly string[]): Promise<{line: string; stderr: string}> {
	const run = startCli([...FAST, ...args], {env: fakeEnv({FAKE_NVSMI_SCENARIO: EIGHT_GPUS, FAKE_NVSMI_LOG: calls})});
	await run.waitFor(o => o.stdout.includes('gpu7'), 15_000);
	run.child.kill('SIGTERM');
	expect(await run.exited).toBe(0);
	const line = run
		.stdout()
		.split('\n')
		.find(l => l.includes('gpu7'))!;
	return {line, stderr: run.stderr()};
}

test('--gpu-thresholds: the named GPU is judged at its own threshold, the one beside it at the same percent is not', async () => {
	const {line, stderr} = await statusLine(['--gpu-thresholds', `${GPU2}=55`]);
	expect(line).toMatch(/gpu2 52\.8% WARN util 85% {2}gpu3 52\.8% ok util 60%/);
	expect(stderr).toContain(`thresholds ram 85% gpu 90% (${GPU2} 55%) swap 50%`);
	expect(stderr).toMatch(/WARN gpu2 at 52\.8%: within 10 points of the 55% threshold \(was ok\)/);
	expect(stderr).not.toMatch(/gpu3 at/);
});

test("a config file's gpuThresholds does the same; a flag for the same GPU wins over it", async () => {
	const config = path.join(dir, 'traintop.json');
	await writeFile(config, JSON.stringify({gpuThresholds: {[GPU2]: 50}}));
	const fromFile = await statusLine(['--config', config]);
	expect(fromFile.line).toMatch(/gpu2 52\.8% CRIT util 85% {2}gpu3 52\.8% ok/);
	const flagWins = await statusLine(['--config', config, '--gpu-thresholds', `${GPU2}=70`]);
	expect(flagWins.line).toMatch(/gpu2 52\.8% ok util 85%/);
});

test('a bad entry exits 2 with a message naming the flag and the entry', async () => {
	const {code, stderr} = await runCli(['--headless', '--gpu-thresholds', `${GPU2}=150`], {env: fakeEnv()});
	expect(code).toBe(2);
	expect(stderr).toContain(
		`--gpu-thresholds entry for GPU "${GPU2}" must be a percentage from 1 to 100 (got '${GPU2}=150')`,
	);
});

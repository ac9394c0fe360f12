// The performance budget's scenario (docs/architecture.md "Performance budget"), shared by the benches: the demo
// job with 8 ranks (python3 processes whose own CPU is not traintop's; traintop finds them with --pid and scans
// them every 2 s), a run dir holding 50 checkpoints in the seed layout, and the fake nvidia-smi answering for 8 GPUs.

import {mkdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {shellQuote} from './tmux.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fakeNvidiaSmiDir = path.join(root, 'test/helpers/fake-nvidia-smi');
const FAKE_8GPU_SCENARIO = 'issue-titanx-8gpu-noheader-nounits';

/** The environment that puts the fake nvidia-smi (8 GPUs) first on PATH. */
export function fakeGpuEnv(extra = {}) {
	return {PATH: `${fakeNvidiaSmiDir}:${process.env.PATH}`, FAKE_NVSMI_SCENARIO: FAKE_8GPU_SCENARIO, ...extra};
}

const EMPTY_ZIP = Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]);

/**
 * Starts the demo job (8 ranks, 2 workers each) in `<work>/<name>` (default `run`), seeded with 50 checkpoints;
 * resolves once its ranks are ready.
 */
export async function startScenario(
	work,
	{ranks = 8, workers = 2, checkpoints = 50, name = 'run', stepSeconds = 0.5} = {},
) {
	const {startDemoJob} = await import(path.join(root, 'dist/demo/job.js'));
	const runDir = path.join(work, name);
	for (let i = 1; i <= checkpoints; i++) {
		const step = i * 100;
		const dir = path.join(runDir, 'checkpoints', `checkpoint_step_${step}_20261122_${String(step).padStart(6, '0')}`);
		mkdirSync(dir, {recursive: true});
		writeFileSync(path.join(dir, 'state.pt'), EMPTY_ZIP);
	}
	const job = await startDemoJob({runDir, ranks, workers, stepSeconds, saveEvery: 0, shutdownTimeoutS: 5});
	await job.ranksReady(60_000);
	return {runDir, job};
}

export function tuiCommand({cli, runDir, launcherPid, interval = 1, nodeArgs = [], env = {}, args = ['--no-log']}) {
	const vars = Object.entries(fakeGpuEnv(env)).map(([k, v]) => `${k}=${shellQuote(String(v))}`);
	const words = [process.execPath, ...nodeArgs, cli, runDir, '--pid', String(launcherPid)];
	return ['exec env', ...vars, ...words.map(shellQuote), '--interval', String(interval), ...args.map(shellQuote)].join(
		' ',
	);
}

import {spawn} from 'node:child_process';
import {mkdtemp, readdir, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {ROOT} from '../helpers/dist.js';

// examples/python/train.py on a run dir that holds the other model's checkpoint: its toy model (no PyTorch) and its
// torch model save the same layout and cannot read each other's state. It must say so and stop, not crash in
// torch.load ("Invalid magic number; corrupt file?") or pickle.loads.

const TRAIN = path.join(ROOT, 'examples/python/train.py');
/** What a rank must not inherit from whoever runs the tests: its identity and a process group to join. */
const SCRUB = ['RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'LOCAL_WORLD_SIZE', 'MASTER_ADDR', 'MASTER_PORT'];

let dir = '';
let runDir = '';
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-example-models-'));
	runDir = path.join(dir, 'run');
});
afterEach(async () => {
	await rm(dir, {recursive: true, force: true});
});

const checkpointEntries = async (): Promise<string[]> => (await readdir(path.join(runDir, 'checkpoints'))).sort();

const regexpOf = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** python3 with these arguments, to its end: its exit code and output. */
function pythonRun(
	args: readonly string[],
	env: NodeJS.ProcessEnv = process.env,
): Promise<{code: number | null; stdout: string; stderr: string}> {
	const child = spawn('python3', args, {env, stdio: ['ignore', 'pipe', 'pipe']});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	return new Promise(resolve => child.once('close', code => resolve({code, stdout, stderr})));
}

async function pythonExit(args: readonly string[]): Promise<number | null> {
	return (await pythonRun(args)).code;
}

describe("examples/python/train.py and the other model's checkpoints", () => {
	test("a run dir holding the other model's checkpoints (toy vs torch): refused naming the file and the way out, nothing written", async () => {
		// What the other model would have saved: torch.save's zip archive where this Python has no PyTorch (as
		// here), the toy model's pickle where it has. Saved by the module itself, so the metadata points at it.
		const hasTorch = (await pythonExit(['-c', 'import torch'])) === 0;
		const other = hasTorch ? 'toy' : 'torch';
		const state = hasTorch
			? 'pickle.dumps({"step": 5, "weights": [0.0], "rng": None})'
			: '(lambda b: (zipfile.ZipFile(b, "w").writestr("archive/data.pkl", b"x"), b.getvalue())[1])(io.BytesIO())';
		const script = [
			'import io, pickle, sys, zipfile',
			'sys.dont_write_bytecode = True',
			`sys.path.insert(0, ${JSON.stringify(path.dirname(TRAIN))})`,
			'import traintop_signals as ts',
			`print(ts.save_checkpoint(sys.argv[1], 5, ${state}, "periodic", 3))`,
		].join('\n');
		const saved = await pythonRun(['-c', script, runDir]);
		expect(saved.code, saved.stderr).toBe(0);
		const name = saved.stdout.trim();
		const before = await checkpointEntries();

		const env: NodeJS.ProcessEnv = {...process.env};
		for (const variable of SCRUB) delete env[variable];
		const run = await pythonRun([TRAIN, '--run-dir', runDir, '--step-seconds', '0.05'], env);
		expect(run.code, run.stderr).toBe(2);
		const statePath = path.join(runDir, 'checkpoints', name, 'state.pt');
		expect(run.stderr).toMatch(
			new RegExp(
				`^rank 0: cannot resume from ${regexpOf(statePath)}: the ${other} model wrote it, and this run trains the ${hasTorch ? 'torch' : 'toy'} model \\(PyTorch .*\\)\\. A run dir holds one model's checkpoints: give this run its own --run-dir, or `,
			),
		);
		expect(run.stderr).not.toContain('Traceback');
		expect(run.stdout).not.toMatch(/ready|saved/);
		expect(await checkpointEntries()).toEqual(before);
	});
});

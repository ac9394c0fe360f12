import {type ChildProcess, execFileSync, spawn} from 'node:child_process';
import {statSync} from 'node:fs';
import path from 'node:path';
import {ROOT} from './dist.js';
import {freePort} from './free-port.js';
import {until} from './until.js';

// A real DDP job: test/fixtures/jobs/ddp_plain.py (torch.distributed, gloo on CPU) under real torchrun, as a user
// starts one. It needs PyTorch: .ci/run installs Debian's python3-torch (torch 1.13) for /usr/bin/python3.

const JOB = path.join(ROOT, 'test/fixtures/jobs/ddp_plain.py');

/** The first python3 that imports torch.distributed: Debian's, or the one on PATH. Throws, saying what to install. */
function torchPython(): string {
	for (const python of ['/usr/bin/python3', 'python3']) {
		try {
			execFileSync(python, ['-c', 'import torch.distributed'], {stdio: 'ignore', timeout: 60_000});
			return python;
		} catch {
			// not this one
		}
	}
	throw new Error(
		'this test runs a real PyTorch DDP job: install PyTorch for python3 (Debian: apt-get install python3-torch)',
	);
}

/** What a job must not inherit from whoever runs the tests: an identity and a process group to join. */
const SCRUB = ['RANK', 'LOCAL_RANK', 'WORLD_SIZE', 'LOCAL_WORLD_SIZE', 'MASTER_ADDR', 'MASTER_PORT', 'SLURM_PROCID'];

export interface DdpJob {
	/** torchrun's pid: the elastic agent, parent of the ranks. */
	readonly launcherPid: number;
	readonly child: ChildProcess;
	/** Everything torchrun printed (its --tee copies of the ranks' stdout, prefixed `[default0]:`). */
	output(): string;
	/** The ranks' pids, once both said they are ready. */
	ranks(): Promise<number[]>;
	/** The saves rank 0 reported, in order, with their reason (periodic, signal, exit) and the write time it measured. */
	saves(): {readonly step: number; readonly name: string; readonly reason: string; readonly writeS: number}[];
	/** The mtime (epoch ms) of a checkpoint file the job wrote, while it is there. */
	savedAt(name: string): number;
	readonly exited: Promise<number | string>;
	stop(): Promise<void>;
}

export interface DdpOptions {
	readonly saveEvery: number;
	readonly stepSeconds: number;
	readonly keep?: number;
	/** Each checkpoint's bytes written over this many seconds (a slow file system); 0: at once. */
	readonly saveSeconds?: number;
	/** This rank starts without a SIGTERM handler. */
	readonly noTermHandler?: number;
}

/** A torchrun started by a test: its process, everything it printed (stdout and stderr), and its end. */
export interface Torchrun {
	readonly child: ChildProcess;
	output(): string;
	readonly exited: Promise<number | string>;
}

/**
 * `python -m torch.distributed.run` with `launch` (its own options), then `script` and its arguments: on a random
 * port, one OpenMP thread a rank, none of the runner's job variables inherited. `endOn`: 'close' waits for every
 * holder of its output to close it; 'exit' for torchrun alone (a worker left asleep may hold its stderr open).
 */
export function startTorchrun(
	launch: readonly string[],
	script: string,
	scriptArgs: readonly string[],
	endOn: 'close' | 'exit' = 'close',
): Torchrun {
	const python = torchPython();
	const env: NodeJS.ProcessEnv = {...process.env, OMP_NUM_THREADS: '1'};
	for (const name of SCRUB) delete env[name];
	const port = String(freePort());
	// --redirects 1 --tee 1: Debian's torch 1.13 on Python 3.11 cannot parse torchrun's default "0" for these (a zero
	// IntFlag is not iterated any more); 1 sends the ranks' stdout to a log file and copies it to torchrun's.
	const args = [
		...['-m', 'torch.distributed.run', '--master_port', port, ...launch],
		...['--redirects', '1', '--tee', '1', script, ...scriptArgs],
	];
	const child = spawn(python, args, {env, stdio: ['ignore', 'pipe', 'pipe']});
	let out = '';
	child.stdout?.on('data', (chunk: Buffer) => {
		out += chunk.toString();
	});
	child.stderr?.on('data', (chunk: Buffer) => {
		out += chunk.toString();
	});
	const exited = new Promise<number | string>(resolve => {
		child.once(endOn, (code: number | null, signal: NodeJS.Signals | null) => resolve(code ?? signal ?? -1));
	});
	return {child, output: () => out, exited};
}

export function startDdpJob(runDir: string, options: DdpOptions): DdpJob {
	const {child, output, exited} = startTorchrun(['--nproc_per_node', '2'], JOB, [
		...['--run-dir', runDir],
		...['--save-every', String(options.saveEvery), '--step-seconds', String(options.stepSeconds)],
		...['--keep', String(options.keep ?? 0), '--save-seconds', String(options.saveSeconds ?? 0)],
		...['--no-term-handler', String(options.noTermHandler ?? -1)],
	]);
	const readyPids = (): number[] => [...output().matchAll(/rank \d ready pid (\d+)/g)].map(m => Number(m[1]));
	return {
		launcherPid: child.pid ?? -1,
		child,
		output,
		async ranks() {
			// What torchrun said (or that it said nothing) goes with a timeout: a silent one told nothing in CI.
			await until(readyPids, pids => pids.length === 2, 'both DDP ranks ready', 120_000, 100).catch(
				(error: unknown) => {
					throw new Error(`${String(error)}; torchrun's output: ${JSON.stringify(output().slice(-2000))}`);
				},
			);
			return readyPids();
		},
		saves: () =>
			[...output().matchAll(/saved (ckpt_step(\d+)\.pt) step \d+ reason (\w+) write ([\d.]+) s/g)].map(m => ({
				name: m[1] ?? '',
				step: Number(m[2]),
				reason: m[3] ?? '',
				writeS: Number(m[4]),
			})),
		savedAt: name => statSync(path.join(runDir, 'checkpoints', name)).mtimeMs,
		exited,
		async stop() {
			if (child.exitCode === null && child.signalCode === null) {
				for (const pid of readyPids()) {
					try {
						process.kill(pid, 'SIGCONT');
					} catch {
						// gone
					}
				}
				child.kill('SIGTERM');
				const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
				await exited;
				clearTimeout(timer);
			}
			for (const pid of readyPids()) {
				try {
					process.kill(pid, 'SIGKILL');
				} catch {
					// gone
				}
			}
		},
	};
}

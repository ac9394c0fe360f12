import {type ChildProcess, spawn} from 'node:child_process';
import path from 'node:path';
import {startTorchrun} from './ddp-job.js';
import {ROOT} from './dist.js';
import {until} from './until.js';

// A real DDP job with one leaking rank: test/fixtures/jobs/ddp_leak.py (torch.distributed, gloo on CPU) under real
// torchrun, each rank with DataLoader workers that share its large read-only array. And a memory hog that is not the
// job, started as another user. Measured here (kernel 6.18, Debian torch 1.13, 2 ranks, 2 workers each, a 150 MiB
// array, 2 MiB a step at 0.5 s): each rank about 390 MiB RSS and 135 MiB PSS, each worker 280 MiB RSS and 95 MiB
// PSS; the job's RSS sum is about three times its PSS sum; the leaking rank grows 4 MiB/s.

const JOB = path.join(ROOT, 'test/fixtures/jobs/ddp_leak.py');

export interface LeakJob {
	readonly launcherPid: number;
	readonly child: ChildProcess;
	output(): string;
	/** Rank → its pid and its workers' pids, once every rank said it is ready. */
	ranks(): Promise<Map<number, {readonly pid: number; readonly workers: readonly number[]}>>;
	stop(): Promise<void>;
}

export interface LeakOptions {
	readonly nproc: number;
	readonly leakRank: number;
	readonly leakMib: number;
	readonly stepSeconds: number;
	readonly arrayMib: number;
	readonly workers: number;
}

export function startLeakJob(options: LeakOptions): LeakJob {
	const {child, output, exited} = startTorchrun(
		['--nproc_per_node', String(options.nproc)],
		JOB,
		[
			...['--array-mib', String(options.arrayMib), '--workers', String(options.workers)],
			...['--leak-rank', String(options.leakRank), '--leak-mib', String(options.leakMib)],
			...['--step-seconds', String(options.stepSeconds)],
		],
		'exit',
	);
	const ready = () =>
		new Map(
			[...output().matchAll(/rank (\d+) ready pid (\d+) workers ([\d,]*)/g)].map(m => [
				Number(m[1]),
				{pid: Number(m[2]), workers: m[3] ? m[3].split(',').map(Number) : []},
			]),
		);
	return {
		launcherPid: child.pid ?? -1,
		child,
		output,
		async ranks() {
			await until(ready, found => found.size === options.nproc, `all ${options.nproc} ranks ready`, 180_000, 100);
			return ready();
		},
		async stop() {
			if (child.exitCode === null && child.signalCode === null) {
				child.kill('SIGTERM');
				const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
				await exited;
				clearTimeout(timer);
			}
		},
	};
}

export interface Hog {
	readonly child: ChildProcess;
	/** Once it holds its memory. */
	ready(): Promise<void>;
	stop(): void;
}

/** `python3 -c …` holding `mib` MiB of written pages, as the user `nobody` (uid 65534): a stranger's process. */
export function startHog(mib: number, tag: string): Hog {
	const code = `import sys,time\nheld=b'\\x01'*(${mib}*1024*1024)\nprint('holding',flush=True)\ntime.sleep(900)`;
	const child = spawn('/usr/bin/python3', ['-c', code, tag], {
		uid: 65534,
		gid: 65534,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let out = '';
	child.stdout?.on('data', chunk => {
		out += String(chunk);
	});
	return {
		child,
		ready: async () => {
			await until(
				() => out,
				text => text.includes('holding'),
				'the hog holding its memory',
				60_000,
				50,
			);
		},
		stop: () => void child.kill('SIGKILL'),
	};
}

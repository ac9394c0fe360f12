import type {ChildProcess} from 'node:child_process';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {startTorchrun} from './ddp-job.js';
import {ROOT} from './dist.js';
import {until} from './until.js';

// A real DDP job that hangs: test/fixtures/jobs/ddp_hang.py (torch.distributed, gloo on CPU) under real torchrun,
// started as ddp-job.ts starts ddp_plain.py. It needs PyTorch (Debian's python3-torch, torch 1.13, for
// /usr/bin/python3).
//
// What the kernel shows of each hang, measured on the 2-core test machine (kernel 6.18, Debian torch 1.13, 2 ranks,
// steps of 0.1 s, USER_HZ 100; /proc/PID/wchan of the main thread, state from /proc/PID/stat):
// - torchrun's agent: S in hrtimer_nanosleep (it sleeps --monitor_interval between polls of its ranks).
// - --hang sleep (rank 1 at step 30): rank 1 S hrtimer_nanosleep; rank 0 S futex_do_wait (blocked in all_reduce).
//   Threads of a waiting rank: main futex_do_wait; then poll_schedule_timeout.constprop.0, do_epoll_wait, and two
//   futex_do_wait (gloo's threads). The main thread's CPU time stands still (53+6 ticks before and after 30 s), but
//   the process's does not: the do_epoll_wait thread gained 5 ticks in 30 s in both ranks (about 0.17 % of a core),
//   so a rank's summed CPU time creeps while it waits; the sleeping rank's likewise.
// - --hang compute: the odd rank R with wchan 0, about 66 ticks a second on the shared 2 cores; its peer S
//   futex_do_wait.
// - SIGSTOP of a rank (with 2 workers each): the rank T in do_signal_stop, every one of its threads T
//   do_signal_stop; its own workers stay S in poll_schedule_timeout.constprop.0 (their index queue's 5 s get); its
//   peer S futex_do_wait.
// - --hang worker-sleep (2 workers a rank, the batch of step 30): that worker S hrtimer_nanosleep; its rank's main
//   thread S poll_schedule_timeout.constprop.0 (the DataLoader's 5 s get on the result queue; it wakes every 5 s but
//   its ticks stood still over 20 s); the other workers S poll_schedule_timeout.constprop.0; the peer rank S
//   futex_do_wait (in DDP's gradient all_reduce).
// - --pause-every: every rank S hrtimer_nanosleep for the pause.
// - SIGKILL of rank 1 (2 ranks; seconds after the kill until the peer is Z or gone):
//     no workers, default --monitor_interval (5 s in torch 1.13's run.py): peer Z at 0.31 s. Gloo sees the dead
//       rank's sockets close and the peer's all_reduce throws at once.
//     no workers, --monitor_interval 30: peer Z at 0.25 s; the killed rank Z (unreaped) until the agent's poll, 25.7 s.
//     1 worker a rank, default interval: the agent reaps the killed rank at its next poll (1.26 s, 0.26 s) and at
//       that same poll stops the peers (SIGTERM), so the peer is gone with it.
//     1 worker a rank, --monitor_interval 30: the peer stays S (waiting) 5.00 s and 5.00 s (two runs), the killed
//       rank Z throughout (field 52 of its stat: 9, SIGKILL; wchan 0), until the agent's poll at 24 s.
//   Why the last is a real window: the killed rank's fork-started DataLoader worker inherited its gloo sockets, so
//   the peers see no connection close until that worker exits; it exits when its watchdog sees its parent gone
//   (torch/utils/data/_utils/worker.py: `while watchdog.is_alive()` around `index_queue.get(timeout=
//   MP_STATUS_CHECK_INTERVAL)`, 5.0 s in _utils/__init__.py). It last got an index one step before the kill, so the
//   peers wait about 5 s less a step. A long --monitor_interval keeps the agent from tearing them down first: it
//   polls its ranks only at that interval (5 s by default in torch 1.13's run.py, 0.1 s in torch 2.x's, which takes
//   --monitor-interval and --monitor_interval alike), so the killed rank stays a zombie of torchrun's for that window.

const JOB = path.join(ROOT, 'test/fixtures/jobs/ddp_hang.py');

export interface HangOptions {
	/** Ranks (torchrun --nproc_per_node); 2 unless given. */
	readonly nproc?: number;
	readonly stepSeconds?: number;
	readonly hangRank?: number;
	readonly hangStep?: number;
	readonly hang?: 'sleep' | 'compute' | 'worker-sleep';
	readonly pauseEvery?: number;
	readonly pauseSeconds?: number;
	/** DataLoader workers a rank (fork-started); 0: none. */
	readonly workers?: number;
	/** A file rank 0 appends `step N` to after each step. */
	readonly stepsLog?: string;
	/** torchrun's --monitor_interval, seconds (torch 1.13's default: 5). */
	readonly monitorInterval?: number;
}

export interface HangWorker {
	readonly rank: number;
	readonly index: number;
	readonly pid: number;
}

/** The moment a rank (or a rank's worker) started hanging, as the job printed it. */
export interface HangStart {
	readonly rank: number;
	/** The worker's pid for worker-sleep; null for a rank's own hang. */
	readonly workerPid: number | null;
	readonly step: number;
	/** Epoch ms (the job's time.time()). */
	readonly at: number;
}

export interface HangJob {
	/** torchrun's pid: the elastic agent, parent of the ranks. */
	readonly launcherPid: number;
	readonly child: ChildProcess;
	/** Everything torchrun printed (its --tee copies of the ranks' stdout, prefixed `[defaultN]:`, and stderr). */
	output(): string;
	/** Rank number → pid, once every rank said it is ready. */
	ranks(): Promise<Map<number, number>>;
	/** Every rank's workers, once all of them said so. */
	workers(): Promise<HangWorker[]>;
	/** The hang's start, once the job printed it. */
	hangStart(timeoutMs?: number): Promise<HangStart>;
	/** The pauses the ranks printed: rank, step, epoch ms. */
	pauses(): {readonly rank: number; readonly step: number; readonly at: number}[];
	/** torchrun's exit code or signal. */
	readonly exited: Promise<number | string>;
	stop(): Promise<void>;
}

const isJobProcess = (pid: number): boolean => {
	try {
		return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('ddp_hang.py');
	} catch {
		return false;
	}
};

/** A signal to a pid of this job only: a pid reused since by another process is left alone. */
function signalJob(pid: number, signal: NodeJS.Signals): void {
	if (!isJobProcess(pid)) return;
	try {
		process.kill(pid, signal);
	} catch {
		// gone
	}
}

export function startHangJob(runDir: string, options: HangOptions = {}): HangJob {
	const nproc = options.nproc ?? 2;
	const workers = options.workers ?? 0;
	const launch = [
		...['--nproc_per_node', String(nproc)],
		...(options.monitorInterval === undefined ? [] : ['--monitor_interval', String(options.monitorInterval)]),
	];
	// 'exit', not 'close': a worker left sleeping holds torchrun's stderr open after torchrun is gone.
	const {child, output, exited} = startTorchrun(
		launch,
		JOB,
		[
			...['--run-dir', runDir],
			...['--step-seconds', String(options.stepSeconds ?? 0.1), '--workers', String(workers)],
			...['--hang-rank', String(options.hangRank ?? -1), '--hang-step', String(options.hangStep ?? -1)],
			...['--hang', options.hang ?? 'sleep'],
			...['--pause-every', String(options.pauseEvery ?? 0), '--pause-seconds', String(options.pauseSeconds ?? 0)],
			...(options.stepsLog === undefined ? [] : ['--steps-log', options.stepsLog]),
		],
		'exit',
	);
	const readyRanks = (): Map<number, number> =>
		new Map([...output().matchAll(/rank (\d+) ready pid (\d+)/g)].map(m => [Number(m[1]), Number(m[2])]));
	const readyWorkers = (): HangWorker[] =>
		[...output().matchAll(/rank (\d+) worker (\d+) pid (\d+)/g)].map(m => ({
			rank: Number(m[1]),
			index: Number(m[2]),
			pid: Number(m[3]),
		}));
	const hangLine = (): HangStart | undefined => {
		const rank = /rank (\d+) hangs \((?:sleep|compute)\) at step (\d+) time ([\d.]+)/.exec(output());
		if (rank) return {rank: Number(rank[1]), workerPid: null, step: Number(rank[2]), at: Number(rank[3]) * 1000};
		const worker = /rank (\d+) worker pid (\d+) hangs at step (\d+) time ([\d.]+)/.exec(output());
		if (worker)
			return {
				rank: Number(worker[1]),
				workerPid: Number(worker[2]),
				step: Number(worker[3]),
				at: Number(worker[4]) * 1000,
			};
		return undefined;
	};
	const everyPid = (): number[] => [...readyRanks().values(), ...readyWorkers().map(w => w.pid)];
	return {
		launcherPid: child.pid ?? -1,
		child,
		output,
		async ranks() {
			await until(readyRanks, ranks => ranks.size === nproc, `all ${nproc} DDP ranks ready`, 120_000, 100);
			return readyRanks();
		},
		async workers() {
			const want = nproc * workers;
			await until(readyWorkers, found => found.length === want, `all ${want} DataLoader workers`, 120_000, 100);
			return readyWorkers();
		},
		async hangStart(timeoutMs = 120_000) {
			await until(hangLine, found => found !== undefined, 'the job printing its hang', timeoutMs, 100);
			return hangLine() as HangStart;
		},
		pauses: () =>
			[...output().matchAll(/rank (\d+) pause at step (\d+) for [\d.]+ s time ([\d.]+)/g)].map(m => ({
				rank: Number(m[1]),
				step: Number(m[2]),
				at: Number(m[3]) * 1000,
			})),
		exited,
		async stop() {
			// A stopped rank takes no SIGTERM until it runs again.
			for (const pid of everyPid()) signalJob(pid, 'SIGCONT');
			if (child.exitCode === null && child.signalCode === null) {
				child.kill('SIGTERM');
				const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
				await exited;
				clearTimeout(timer);
			}
			// A worker asleep in __getitem__ never checks that its rank is gone: it would outlive the job.
			for (const pid of everyPid()) signalJob(pid, 'SIGKILL');
		},
	};
}

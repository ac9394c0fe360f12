// The demo training job: real Python processes shaped like a torchrun job (an agent, ranks that each lead their own
// session, pt_data_worker children, checkpoints in the seed layout). See demo/job/README.md.
// This module starts and stops it; it never prints.

import {spawn, type ChildProcess} from 'node:child_process';
import {mkdirSync} from 'node:fs';
import path from 'node:path';
import {createInterface} from 'node:readline';
import {fileURLToPath} from 'node:url';
import {procReader} from '../system/procfs.js';
import {demoLauncherArgs, type DemoJobOptions} from './job-options.js';
import {requirePython} from './python.js';

/** Absolute path of demo/job: two levels above this module both in src/demo (tests) and dist/demo (built). */
export const DEMO_JOB_DIR: string = fileURLToPath(new URL('../../demo/job', import.meta.url));
const DEMO_LAUNCHER: string = path.join(DEMO_JOB_DIR, 'launcher.py');

export interface DemoJob {
	readonly launcherPid: number;
	/** Absolute. */
	readonly runDir: string;
	/** `<runDir>/checkpoints`. */
	readonly checkpointDir: string;
	/** Everything the launcher, ranks and workers printed (stdout and stderr, in arrival order; the last 5000 lines). */
	readonly output: () => string;
	/** Calls `listener` with every later line; returns the unsubscribe function. */
	onLine(listener: (line: string) => void): () => void;
	/**
	 * Resolves with the first line (already printed or later) matching `pattern`; rejects after `timeoutMs`
	 * (default 10 s) or when the output has ended without one.
	 */
	waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
	/** rank → pid, once every rank printed that it is ready (handlers installed, workers named). Default 15 s. */
	ranksReady(timeoutMs?: number): Promise<Map<number, number>>;
	/** rank → its workers' pids, as the ranks reported them when ready. */
	workerPids(): Map<number, number[]>;
	/**
	 * SIGTERM to the launcher (it forwards to the ranks), wait for its exit (bounded by the shutdown timeout plus
	 * 5 s, then SIGKILL), then SIGKILL every survivor among the launcher, ranks and workers. Resolves with the
	 * launcher's exit code (null when it died of a signal). Safe to call more than once.
	 */
	stop(): Promise<number | null>;
	/**
	 * The launcher's exit code, or null when a signal ended it. Resolves once its output has been read too (at most
	 * 0.5 s after the exit: ranks that outlive a killed launcher hold the pipe), so output() then has every line.
	 */
	readonly exited: Promise<number | null>;
	/** The signal that ended the launcher, once it has exited that way. */
	exitSignal(): NodeJS.Signals | null;
}

const MAX_LINES = 5000;
const READY_LINE = /^rank (\d+) ready pid (\d+) workers ([\d,]+|-)$/;
const STARTED_LINE = /^launcher: started rank (\d+) pid (\d+)$/;

interface KnownProcess {
	readonly pid: number;
	readonly startTime: number | null;
}

function known(pid: number): KnownProcess {
	return {pid, startTime: procReader().stat(pid)?.startTime ?? null};
}

/** True while the process we saw is still there (same start time, not a zombie). */
function stillRunning(proc: KnownProcess): boolean {
	const stat = procReader().stat(proc.pid);
	if (stat === null || stat.state === 'Z' || stat.state === 'X') return false;
	return proc.startTime === null || stat.startTime === proc.startTime;
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(pid, signal);
	} catch {
		// ESRCH: already gone.
	}
}

function waitForSpawn(child: ChildProcess, command: string): Promise<void> {
	return new Promise((resolve, reject) => {
		child.once('spawn', () => resolve());
		child.once('error', (error: NodeJS.ErrnoException) => {
			reject(new Error(`cannot start the demo job with ${command}: ${error.message}`, {cause: error}));
		});
	});
}

/** Starts the launcher (which starts the ranks). Throws when Python 3 is missing or the launcher cannot start. */
export async function startDemoJob(options: DemoJobOptions): Promise<DemoJob> {
	const runDir = path.resolve(options.runDir);
	const args = demoLauncherArgs(options, runDir);
	const python = requirePython(options.python, options.env?.PATH ?? process.env.PATH);
	mkdirSync(runDir, {recursive: true});

	const child = spawn(python, [DEMO_LAUNCHER, ...args], {
		cwd: runDir,
		env: {...process.env, ...options.env, PYTHONDONTWRITEBYTECODE: '1'},
		stdio: ['ignore', 'pipe', 'pipe'],
		// Its own process group: a terminal's Ctrl-C reaches traintop, which stops the job deliberately.
		detached: true,
	});
	child.stdout?.on('error', () => {});
	child.stderr?.on('error', () => {});
	let exitCode: number | null = null;
	let exitSignal: NodeJS.Signals | null = null;
	let hasExited = false;
	const launcherExit = new Promise<number | null>(resolve => {
		child.once('exit', (code, signal) => {
			hasExited = true;
			exitCode = code;
			exitSignal = signal;
			resolve(code);
		});
	});
	await waitForSpawn(child, python);
	child.on('error', () => {}); // a failed kill() later must not become an uncaught exception
	const spawnedPid = child.pid;
	if (spawnedPid === undefined) throw new Error(`cannot start the demo job with ${python}: no pid`);
	const launcherPid: number = spawnedPid;
	const launcher = known(launcherPid);

	const lines: string[] = [];
	const listeners = new Set<(line: string) => void>();
	const readyPids = new Map<number, number>();
	const workers = new Map<number, number[]>();
	const processes = new Map<number, KnownProcess>(); // pid → identity, ranks and workers
	let openStreams = 0;
	const endWaiters = new Set<() => void>();

	function remember(pid: number): void {
		if (!processes.has(pid)) processes.set(pid, known(pid));
	}

	function onLine(line: string): void {
		lines.push(line);
		if (lines.length > MAX_LINES) lines.splice(0, lines.length - MAX_LINES);
		const started = STARTED_LINE.exec(line);
		if (started) remember(Number(started[2]));
		const ready = READY_LINE.exec(line);
		if (ready) {
			const rank = Number(ready[1]);
			const pid = Number(ready[2]);
			readyPids.set(rank, pid);
			remember(pid);
			const workerList = ready[3] === '-' || ready[3] === undefined ? [] : ready[3].split(',').map(Number);
			workers.set(rank, workerList);
			for (const worker of workerList) remember(worker);
		}
		for (const listener of [...listeners]) listener(line);
	}

	for (const stream of [child.stdout, child.stderr]) {
		if (stream === null) continue;
		openStreams += 1;
		createInterface({input: stream, crlfDelay: Infinity}).on('line', onLine);
		stream.once('close', () => {
			openStreams -= 1;
			if (openStreams === 0) for (const waiter of [...endWaiters]) waiter();
		});
	}

	function waitForLine(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
		const matches = (line: string): boolean => {
			pattern.lastIndex = 0;
			return pattern.test(line);
		};
		const earlier = lines.find(matches);
		if (earlier !== undefined) return Promise.resolve(earlier);
		return new Promise((resolve, reject) => {
			const timer = setTimeout(
				() => finish(new Error(`no line matching ${pattern} within ${timeoutMs} ms`)),
				timeoutMs,
			);
			const listener = (line: string): void => {
				if (matches(line)) finish(line);
			};
			const onEnd = (): void => finish(new Error(`the demo job's output ended without a line matching ${pattern}`));
			function finish(result: string | Error): void {
				clearTimeout(timer);
				listeners.delete(listener);
				endWaiters.delete(onEnd);
				if (typeof result === 'string') resolve(result);
				else reject(withOutput(result));
			}
			listeners.add(listener);
			if (openStreams === 0) onEnd();
			else endWaiters.add(onEnd);
		});
	}

	function withOutput(error: Error): Error {
		error.message += `\n--- demo job output (last lines):\n${lines.slice(-40).join('\n')}`;
		return error;
	}

	const ranks = options.ranks ?? 4;

	function ranksReady(timeoutMs = 15_000): Promise<Map<number, number>> {
		if (readyPids.size >= ranks) return Promise.resolve(new Map(readyPids));
		return new Promise((resolve, reject) => {
			const timer = setTimeout(
				() => finish(new Error(`only ${readyPids.size} of ${ranks} demo ranks were ready within ${timeoutMs} ms`)),
				timeoutMs,
			);
			const listener = (): void => {
				if (readyPids.size >= ranks) finish(null);
			};
			const onEnd = (): void =>
				finish(new Error(`the demo job's output ended with ${readyPids.size} of ${ranks} ranks ready`));
			function finish(error: Error | null): void {
				clearTimeout(timer);
				listeners.delete(listener);
				endWaiters.delete(onEnd);
				if (error === null) resolve(new Map(readyPids));
				else reject(withOutput(error));
			}
			listeners.add(listener);
			if (openStreams === 0) onEnd();
			else endWaiters.add(onEnd);
		});
	}

	function waitForStreams(timeoutMs: number): Promise<void> {
		if (openStreams === 0) return Promise.resolve();
		return new Promise(resolve => {
			const timer = setTimeout(done, timeoutMs);
			function done(): void {
				clearTimeout(timer);
				endWaiters.delete(done);
				resolve();
			}
			endWaiters.add(done);
		});
	}

	const exited = launcherExit.then(async code => {
		await waitForStreams(500);
		return code;
	});

	let stopping: Promise<number | null> | null = null;
	async function stopOnce(): Promise<number | null> {
		const graceMs = ((options.shutdownTimeoutS ?? 30) + 5) * 1000;
		if (!hasExited) {
			killQuietly(launcherPid, 'SIGTERM');
			let timer: NodeJS.Timeout | undefined;
			const timedOut = await Promise.race([
				exited.then(() => false),
				new Promise<boolean>(resolve => {
					timer = setTimeout(() => resolve(true), graceMs);
				}),
			]);
			clearTimeout(timer);
			if (timedOut && stillRunning(launcher)) {
				killQuietly(launcherPid, 'SIGKILL');
				await exited;
			}
		}
		for (const proc of processes.values()) {
			if (stillRunning(proc)) killQuietly(proc.pid, 'SIGKILL');
		}
		// Whatever held our pipes is gone now; do not let a stray holder keep the event loop alive.
		await waitForStreams(1000);
		child.stdout?.destroy();
		child.stderr?.destroy();
		return exitCode;
	}

	return {
		launcherPid,
		runDir,
		checkpointDir: path.join(runDir, 'checkpoints'),
		output: () => lines.join('\n') + (lines.length > 0 ? '\n' : ''),
		onLine(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		waitForLine,
		ranksReady,
		workerPids: () => new Map([...workers].map(([rank, pids]) => [rank, [...pids]])),
		stop() {
			stopping ??= stopOnce();
			return stopping;
		},
		exited,
		exitSignal: () => exitSignal,
	};
}

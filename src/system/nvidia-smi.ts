// Supervises nvidia-smi: ONE long-lived `--query-gpu … -lms N` loop for the devices (one process, one NVML
// initialisation, rows streamed on stdout) plus slower `--query-compute-apps` one-shots for per-process memory
// (nvidia-smi-processes.ts). Everything nvidia-smi can do wrong becomes a GpuState; nothing here throws at the caller.

import type {ChildProcess} from 'node:child_process';
import {createInterface} from 'node:readline';
import type {Readable} from 'node:stream';
import type {GpuProcessTable, GpuState} from '../core/types.js';
import {
	GpuSampleAssembler,
	firstMeaningfulLine,
	gpuLoopArgs,
	isWarningLine,
	parseGpuLine,
	type GpuSample,
} from './nvidia-smi-parse.js';
import {errorMessage} from '../core/errors.js';
import {ComputeAppsPoller, OUTPUT_DRAIN_MS} from './nvidia-smi-processes.js';
import {formatDuration} from '../format/duration.js';
import {
	hasExited,
	releasePipes,
	signalGroup,
	spawnInOwnGroup,
	sweepGroup,
	terminateGroup,
	waitForExit,
	waitForOutputEnd,
} from './process-group.js';

export interface NvidiaSmiOptions {
	/** Default 'nvidia-smi', resolved on PATH by spawn. */
	command?: string;
	/** The loop's -lms. */
	intervalMs: number;
	/** Cadence of the compute-apps one-shot; 0 turns per-process sampling off. */
	processIntervalMs: number;
	/** Multi-GPU initialisation can take 5–10 s (netdata), so the first sample gets longer than the later ones. */
	firstSampleTimeoutMs?: number;
	/** No complete sample for this many intervals ⇒ nvidia-smi is hung: kill it and start again. */
	staleAfterIntervals?: number;
	/** Restart delays, doubling from `initial` up to `max`; a good sample resets it. */
	backoffMs?: {initial: number; max: number};
	/** SIGTERM, then SIGKILL after this. */
	killGraceMs?: number;
	/** Hard limit for one compute-apps call; default max(2 × processIntervalMs, 10 s). */
	processTimeoutMs?: number;
	env?: NodeJS.ProcessEnv;
	/** Clock for `sampledAt` and `retryAt` (epoch ms). */
	now?: () => number;
}

const DEFAULT_FIRST_SAMPLE_TIMEOUT_MS = 10_000;
const DEFAULT_STALE_AFTER_INTERVALS = 3;
const DEFAULT_BACKOFF_MS = {initial: 1_000, max: 60_000};
const DEFAULT_KILL_GRACE_MS = 2_000;
const MIN_PROCESS_TIMEOUT_MS = 10_000;
/** Non-row lines kept per loop run for error messages; Xid/ECC noise must not grow without bound. */
const TEXT_LINES_KEPT = 20;

/** One run of the device loop, from spawn to its end. */
interface LoopRun {
	readonly child: ChildProcess;
	readonly assembler: GpuSampleAssembler;
	/** Lines that were not rows since the last sample: what nvidia-smi said if it fails now. */
	text: string[];
	warning: string | null;
	samples: number;
	watchdog: NodeJS.Timeout | null;
	/** Set once the run is handled (exited, abandoned or stopped): late events of its child are ignored. */
	finished: boolean;
}

export class NvidiaSmiReader {
	private readonly command: string;
	private readonly intervalMs: number;
	private readonly firstSampleTimeoutMs: number;
	private readonly staleAfterMs: number;
	private readonly backoff: {initial: number; max: number};
	private readonly killGraceMs: number;
	private readonly env: NodeJS.ProcessEnv | undefined;
	private readonly now: () => number;

	private state: GpuState = {status: 'starting'};
	private readonly listeners = new Set<() => void>();

	private started = false;
	private stopped = false;
	private stopping: Promise<void> | null = null;

	private loop: LoopRun | null = null;
	private nextBackoffMs: number;
	private restartTimer: NodeJS.Timeout | null = null;

	private readonly computeApps: ComputeAppsPoller;

	/** Every child whose group may still hold a process: what stop() and killNow() must end. */
	private readonly live = new Set<ChildProcess>();

	constructor(options: NvidiaSmiOptions) {
		this.command = options.command ?? 'nvidia-smi';
		this.intervalMs = options.intervalMs;
		this.firstSampleTimeoutMs = options.firstSampleTimeoutMs ?? DEFAULT_FIRST_SAMPLE_TIMEOUT_MS;
		this.staleAfterMs = (options.staleAfterIntervals ?? DEFAULT_STALE_AFTER_INTERVALS) * options.intervalMs;
		this.backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
		this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
		this.env = options.env;
		this.now = options.now ?? Date.now;
		this.nextBackoffMs = this.backoff.initial;
		this.computeApps = new ComputeAppsPoller({
			command: this.command,
			env: this.env,
			intervalMs: options.processIntervalMs,
			timeoutMs: options.processTimeoutMs ?? Math.max(2 * options.processIntervalMs, MIN_PROCESS_TIMEOUT_MS),
			now: this.now,
			// Its children join `live`: stop() and killNow() end them with the loop's.
			groups: {
				track: (child) => this.track(child),
				forget: (child) => void this.live.delete(child),
				terminate: (child) => this.terminate(child),
			},
			onChange: () => this.notify(),
		});
	}

	start(): void {
		if (this.started || this.stopped) return;
		this.started = true;
		this.spawnLoop();
	}

	getState(): GpuState {
		return this.state;
	}

	getProcesses(): GpuProcessTable {
		return this.computeApps.getTable();
	}

	/** Turn the per-process queries on or off (default on); see ComputeAppsPoller.setWanted. */
	setProcessQueries(wanted: boolean): void {
		this.computeApps.setWanted(wanted);
	}

	/** `listener` runs on every state change and every new sample. Returns the unsubscribe function. */
	subscribe(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Ends every child's process group and resolves once they have exited. Idempotent. */
	stop(): Promise<void> {
		if (this.stopping !== null) return this.stopping;
		this.halt();
		const children = [...this.live];
		this.stopping = Promise.all(children.map((child) => this.terminate(child))).then(() => undefined);
		return this.stopping;
	}

	/**
	 * Synchronous SIGKILL of every child group, for process.on('exit') where nothing asynchronous runs any more.
	 * (After a SIGKILL of traintop itself nothing of ours runs at all: the loop then dies of SIGPIPE at its next
	 * write, within one interval, and a one-shot ends on its own.)
	 */
	killNow(): void {
		this.halt();
		for (const child of this.live) signalGroup(child, 'SIGKILL');
	}

	/** No more spawns, timers or notifications. */
	private halt(): void {
		this.stopped = true;
		this.listeners.clear();
		if (this.restartTimer !== null) clearTimeout(this.restartTimer);
		this.restartTimer = null;
		if (this.loop !== null) this.finishLoop(this.loop);
		this.computeApps.halt();
	}

	// ---- device loop ------------------------------------------------------------------------------------------

	private spawnLoop(): void {
		if (this.stopped) return;
		let child: ChildProcess;
		try {
			child = spawnInOwnGroup(this.command, gpuLoopArgs(this.intervalMs), this.env);
		} catch (error) {
			this.scheduleRestart(`cannot start ${this.command}: ${errorMessage(error)}`, null);
			return;
		}
		const run: LoopRun = {
			child,
			assembler: new GpuSampleAssembler(),
			text: [],
			warning: null,
			samples: 0,
			watchdog: null,
			finished: false,
		};
		this.loop = run;
		this.track(child);
		// `on`, not `once`: a second 'error' without a listener would be thrown at traintop.
		child.on('error', (error) => this.onLoopSpawnError(run, error));
		readLines(child.stdout, (line) => this.onLoopLine(run, line, 'stdout'));
		readLines(child.stderr, (line) => this.onLoopLine(run, line, 'stderr'));
		child.once('exit', (code, signal) => void this.onLoopExit(run, code, signal));
		this.armWatchdog(run);
	}

	private onLoopSpawnError(run: LoopRun, error: Error): void {
		if (run.finished) return;
		this.finishLoop(run);
		this.live.delete(run.child);
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
			// No NVIDIA tooling on this machine: nothing to retry.
			const where = this.command.includes('/') || this.command.includes('\\') ? '' : ' on PATH';
			this.setState({status: 'absent', reason: `${this.command} not found${where}`});
			return;
		}
		this.scheduleRestart(`cannot start ${this.command}: ${errorMessage(error)}`, null);
	}

	private onLoopLine(run: LoopRun, line: string, stream: 'stdout' | 'stderr'): void {
		if (run.finished) return;
		// NVML errors come on stdout, so both streams are read; only stdout carries rows.
		const parsed = stream === 'stdout' ? parseGpuLine(line) : parseGpuLineAsText(line);
		if (parsed.kind === 'blank') return;
		if (parsed.kind === 'row') {
			for (const sample of run.assembler.push(parsed.row)) this.onSample(run, sample);
			return;
		}
		if (isWarningLine(parsed.text)) {
			run.warning = parsed.text.trim();
			if (this.state.status === 'ok' && this.state.warning !== run.warning) {
				this.setState({...this.state, warning: run.warning});
			}
			return;
		}
		// Headers, Xid/ECC event text between samples, error text: kept for the message if no sample follows.
		run.text.push(parsed.text);
		if (run.text.length > TEXT_LINES_KEPT) run.text.shift();
	}

	private onSample(run: LoopRun, sample: GpuSample): void {
		run.samples++;
		run.text = [];
		this.nextBackoffMs = this.backoff.initial;
		this.armWatchdog(run);
		this.setState({status: 'ok', gpus: sample.gpus, sampledAt: this.now(), warning: run.warning});
		this.computeApps.kick();
	}

	/** Restarts the staleness watchdog: the first sample gets `firstSampleTimeoutMs`, later ones `staleAfterMs`. */
	private armWatchdog(run: LoopRun): void {
		if (run.watchdog !== null) clearTimeout(run.watchdog);
		const limitMs = run.samples === 0 ? this.firstSampleTimeoutMs : this.staleAfterMs;
		run.watchdog = setTimeout(() => this.onStale(run, limitMs), limitMs);
	}

	private onStale(run: LoopRun, limitMs: number): void {
		if (run.finished) return;
		const said = firstMeaningfulLine(run.text);
		const what = run.samples === 0 ? `no sample within ${formatDuration(limitMs / 1000)}` : `no sample for ${formatDuration(limitMs / 1000)}`;
		this.finishLoop(run);
		// Hung, maybe in the driver: end its whole group (a helper may hold its stdout) before starting another.
		void this.terminate(run.child);
		this.scheduleRestart(`nvidia-smi stopped answering: ${what}${said === null ? '' : `; it said: ${said}`}`, run.child);
	}

	private async onLoopExit(run: LoopRun, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
		if (run.finished) return;
		// 'exit' can come before the last lines have been read (the error text, typically).
		const closed = await waitForOutputEnd(run.child, OUTPUT_DRAIN_MS);
		if (run.finished) return;
		this.finishLoop(run);
		if (closed) {
			this.live.delete(run.child);
			releasePipes(run.child);
		} else {
			void this.terminate(run.child);
		}
		const said = firstMeaningfulLine(run.text);
		const how = signal !== null ? `killed by ${signal}` : `exit ${code}`;
		if (said === null && run.warning !== null && run.samples > 0 && this.state.status === 'ok') {
			// Valid data, a warning and a non-zero exit (infoROM corrupted, 14): keep the data, start it again.
			this.scheduleRestart(null, run.child);
			return;
		}
		this.scheduleRestart(`${said ?? run.warning ?? 'nvidia-smi exited unexpectedly'} (${how})`, run.child);
	}

	private finishLoop(run: LoopRun): void {
		run.finished = true;
		run.assembler.reset();
		if (run.watchdog !== null) clearTimeout(run.watchdog);
		run.watchdog = null;
		if (this.loop === run) this.loop = null;
	}

	/**
	 * Restarts the loop after the current backoff, which then doubles. `message` null keeps the current state.
	 * The new loop starts only once the `previous` one has exited: a driver-wedged nvidia-smi can be unkillable,
	 * and piling up more of them would make things worse.
	 */
	private scheduleRestart(message: string | null, previous: ChildProcess | null): void {
		if (this.stopped) return;
		const delayMs = this.nextBackoffMs;
		this.nextBackoffMs = Math.min(this.nextBackoffMs * 2, this.backoff.max);
		if (message !== null) this.setState({status: 'error', message, retryAt: this.now() + delayMs});
		this.restartTimer = setTimeout(() => {
			this.restartTimer = null;
			if (previous === null) this.spawnLoop();
			else void waitForExit(previous).then(() => this.spawnLoop());
		}, delayMs);
	}

	// ---- shared ----------------------------------------------------------------------------------------------------

	private track(child: ChildProcess): void {
		this.live.add(child);
	}

	/** Ends a child's group; it stays in `live` (so killNow() still reaches it) until that is done. */
	private async terminate(child: ChildProcess): Promise<void> {
		const ended = hasExited(child)
			? await sweepGroup(child, OUTPUT_DRAIN_MS).then(() => true)
			: await terminateGroup(child, this.killGraceMs);
		if (ended) this.live.delete(child);
		releasePipes(child);
	}

	private setState(state: GpuState): void {
		if (this.stopped) return;
		this.state = state;
		// Per-process calls only while the devices answer; the next good sample kicks them again.
		if (state.status !== 'ok') this.computeApps.pause();
		this.notify();
	}

	private notify(): void {
		for (const listener of this.listeners) {
			try {
				listener();
			} catch {
				// A failing view must not stop the reader.
			}
		}
	}
}

/** Feeds `stream` line by line; readline also copes with \r\n. */
function readLines(stream: Readable | null, onLine: (line: string) => void): void {
	if (stream === null) return;
	createInterface({input: stream, crlfDelay: Infinity}).on('line', onLine);
}

/** stderr never carries rows; treat every line as text. */
function parseGpuLineAsText(line: string): {kind: 'text'; text: string} | {kind: 'blank'} {
	const text = line.replace(/\r$/, '');
	return text.trim() === '' ? {kind: 'blank'} : {kind: 'text', text};
}

// Supervises nvidia-smi: ONE long-lived `--query-gpu … -lms N` loop for the devices (nvidia-smi-loop.ts: one process,
// one NVML initialisation, rows streamed on stdout) plus slower `--query-compute-apps` one-shots for per-process memory
// (nvidia-smi-processes.ts), and at start one `--help-query-gpu` one-shot for the health fields the driver knows
// (nvidia-smi-health-help.ts). The reader owns their child process groups, so stop() and killNow() end all of them.
// Everything nvidia-smi can do wrong becomes a GpuState; nothing here throws at the caller.

import type {ChildProcess} from 'node:child_process';
import type {GpuProcessTable, GpuState} from '../core/types.js';
import {GpuLoop} from './nvidia-smi-loop.js';
import {ComputeAppsPoller, OUTPUT_DRAIN_MS, type ChildGroups} from './nvidia-smi-processes.js';
import {hasExited, releasePipes, signalGroup, sweepGroup, terminateGroup} from './process-group.js';

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
	/** …but never sooner than this: at --interval 0.1, 3 intervals (300 ms) killed loops that merely paused. */
	minStaleAfterMs?: number;
	/** Restart delays, doubling from `initial` up to `max`; a good sample resets it. */
	backoffMs?: {initial: number; max: number};
	/** SIGTERM, then SIGKILL after this. */
	killGraceMs?: number;
	/** Hard limit for one compute-apps call; default max(2 × processIntervalMs, 10 s). */
	processTimeoutMs?: number;
	/**
	 * Ask for the GPUs' health (throttling, ECC, remapped rows…: core/gpu-health-types.ts) in the same loop, the fields
	 * the driver's `--help-query-gpu` lists; default off (the backend turns it on), which keeps the query as it was.
	 */
	health?: boolean;
	/** Hard limit for that one `--help-query-gpu` call; default 5 s. Past it, no health fields are asked. */
	healthHelpTimeoutMs?: number;
	env?: NodeJS.ProcessEnv;
	/** Clock for `sampledAt` and `retryAt` (epoch ms). */
	now?: () => number;
}

const DEFAULT_FIRST_SAMPLE_TIMEOUT_MS = 10_000;
const DEFAULT_STALE_AFTER_INTERVALS = 3;
/** A driver call can take a second or two on a busy multi-GPU node without anything being wrong. */
const DEFAULT_MIN_STALE_AFTER_MS = 5_000;
const DEFAULT_BACKOFF_MS = {initial: 1_000, max: 60_000};
const DEFAULT_KILL_GRACE_MS = 2_000;
const MIN_PROCESS_TIMEOUT_MS = 10_000;
/** The help is static text printed without NVML: far under a second even on a loaded node. */
const DEFAULT_HEALTH_HELP_TIMEOUT_MS = 5_000;

export class NvidiaSmiReader {
	/** The name its states carry (GpuState.source); system/gpu-backend.ts hands it out as a GpuBackend. */
	readonly source = 'nvidia-smi';
	readonly #killGraceMs: number;

	readonly #listeners = new Set<() => void>();

	#started = false;
	#stopped = false;
	#stopping: Promise<void> | null = null;

	readonly #devices: GpuLoop;
	readonly #computeApps: ComputeAppsPoller;

	/** Every child whose group may still hold a process: what stop() and killNow() must end. */
	readonly #live = new Set<ChildProcess>();

	constructor(options: NvidiaSmiOptions) {
		const command = options.command ?? 'nvidia-smi';
		const now = options.now ?? Date.now;
		this.#killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
		// The loop's and the one-shots' children all join `live`: stop() and killNow() end them together.
		const groups: ChildGroups = {
			track: child => this.#track(child),
			forget: child => void this.#live.delete(child),
			terminate: child => this.#terminate(child),
		};
		this.#devices = new GpuLoop({
			command,
			env: options.env,
			intervalMs: options.intervalMs,
			firstSampleTimeoutMs: options.firstSampleTimeoutMs ?? DEFAULT_FIRST_SAMPLE_TIMEOUT_MS,
			staleAfterMs: Math.max(
				(options.staleAfterIntervals ?? DEFAULT_STALE_AFTER_INTERVALS) * options.intervalMs,
				options.minStaleAfterMs ?? DEFAULT_MIN_STALE_AFTER_MS,
			),
			backoff: options.backoffMs ?? DEFAULT_BACKOFF_MS,
			now,
			groups,
			onChange: state => {
				// Per-process calls only while the devices answer; the next good sample kicks them again.
				if (state.status !== 'ok') this.#computeApps.pause();
				this.#notify();
			},
			afterSample: () => this.#computeApps.kick(),
			healthHelpTimeoutMs:
				options.health === true ? (options.healthHelpTimeoutMs ?? DEFAULT_HEALTH_HELP_TIMEOUT_MS) : null,
		});
		this.#computeApps = new ComputeAppsPoller({
			command,
			env: options.env,
			intervalMs: options.processIntervalMs,
			timeoutMs: options.processTimeoutMs ?? Math.max(2 * options.processIntervalMs, MIN_PROCESS_TIMEOUT_MS),
			now,
			groups,
			onChange: () => this.#notify(),
		});
	}

	start(): void {
		if (this.#started || this.#stopped) return;
		this.#started = true;
		this.#devices.start();
	}

	getState(): GpuState {
		return this.#devices.getState();
	}

	getProcesses(): GpuProcessTable {
		return this.#computeApps.getTable();
	}

	/** Turn the per-process queries on or off (default on); see ComputeAppsPoller.setWanted. */
	setProcessQueries(wanted: boolean): void {
		this.#computeApps.setWanted(wanted);
	}

	/** `listener` runs on every state change and every new sample. Returns the unsubscribe function. */
	subscribe(listener: () => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	/** Ends every child's process group and resolves once they have exited. Idempotent. */
	stop(): Promise<void> {
		if (this.#stopping !== null) return this.#stopping;
		this.#halt();
		const children = [...this.#live];
		this.#stopping = Promise.all(children.map(child => this.#terminate(child))).then(() => undefined);
		return this.#stopping;
	}

	/**
	 * Synchronous SIGKILL of every child group, for process.on('exit') where nothing asynchronous runs any more.
	 * (After a SIGKILL of traintop itself nothing of ours runs at all: the loop then dies of SIGPIPE at its next
	 * write, within one interval, and a one-shot ends on its own.)
	 */
	killNow(): void {
		this.#halt();
		for (const child of this.#live) signalGroup(child, 'SIGKILL');
	}

	/** No more spawns, timers or notifications. */
	#halt(): void {
		this.#stopped = true;
		this.#listeners.clear();
		this.#devices.halt();
		this.#computeApps.halt();
	}

	#track(child: ChildProcess): void {
		this.#live.add(child);
	}

	/** Ends a child's group; it stays in `live` (so killNow() still reaches it) until that is done. */
	async #terminate(child: ChildProcess): Promise<void> {
		const ended = hasExited(child)
			? await sweepGroup(child, OUTPUT_DRAIN_MS).then(() => true)
			: await terminateGroup(child, this.#killGraceMs);
		if (ended) this.#live.delete(child);
		releasePipes(child);
	}

	#notify(): void {
		for (const listener of this.#listeners) {
			try {
				listener();
			} catch {
				// A failing view must not stop the reader.
			}
		}
	}
}

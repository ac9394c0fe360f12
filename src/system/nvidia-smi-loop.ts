// The device half of NvidiaSmiReader: ONE long-lived `nvidia-smi --query-gpu … -lms N` loop (one process, one NVML
// initialisation, rows streamed on stdout), assembled into samples, watched for staleness, and started again with a
// doubling backoff (what each line and a run's end mean is read in nvidia-smi-run.ts). Everything the loop can do
// wrong becomes a GpuState; nothing here throws.

import type {ChildProcess} from 'node:child_process';
import {errorMessage} from '../core/errors.js';
import type {GpuState} from '../core/types.js';
import {formatDuration} from '../format/duration.js';
import {
	GPU_QUERY_FIELDS,
	GpuSampleAssembler,
	firstMeaningfulLine,
	gpuLoopArgs,
	type QueryField,
	type GpuSample,
} from './nvidia-smi-parse.js';
import {readRunLine, runEnd, type LoopRun} from './nvidia-smi-run.js';
import {readCappedLines} from './capped-lines.js';
import {askHealthFields} from './nvidia-smi-health-help.js';
import {OUTPUT_DRAIN_MS, type ChildGroups} from './nvidia-smi-processes.js';
import {releasePipes, spawnInOwnGroup, waitForExit, waitForOutputEnd} from './process-group.js';

export interface GpuLoopOptions {
	command: string;
	env: NodeJS.ProcessEnv | undefined;
	/** The loop's -lms. */
	intervalMs: number;
	/** The first sample's limit: multi-GPU initialisation can take 5–10 s. */
	firstSampleTimeoutMs: number;
	/** No complete sample for this long ⇒ nvidia-smi is hung: kill it and start again. */
	staleAfterMs: number;
	/** Restart delays, doubling from `initial` up to `max`; a good sample resets it. */
	backoff: {initial: number; max: number};
	/** Clock for `sampledAt` and `retryAt` (epoch ms). */
	now: () => number;
	groups: ChildGroups;
	/** Runs whenever getState() has changed. */
	onChange: (state: GpuState) => void;
	/** Runs after each new sample, once onChange has run for it. */
	afterSample: () => void;
	/**
	 * Ask the driver's `--help-query-gpu` once at start (this long at most) and add the health fields it knows to the
	 * query; null asks for none.
	 */
	healthHelpTimeoutMs: number | null;
}

/** A watchdog this late (or half its window, when more) was not run on time: traintop itself was paused. */
const LATE_TIMER_MS = 1_000;
/** A row of 8 GPUs' sensors is well under 4 KiB; a longer line is not nvidia-smi answering (see capped-lines.ts). */
const MAX_LINE_BYTES = 64 * 1024;

export class GpuLoop {
	readonly #command: string;
	readonly #env: NodeJS.ProcessEnv | undefined;
	readonly #intervalMs: number;
	readonly #firstSampleTimeoutMs: number;
	readonly #staleAfterMs: number;
	readonly #backoff: {initial: number; max: number};
	readonly #now: () => number;
	readonly #groups: ChildGroups;
	readonly #onChange: (state: GpuState) => void;
	readonly #afterSample: () => void;

	#state: GpuState = {status: 'starting', source: 'nvidia-smi'};
	/** The query's fields: all of them (and the health fields the help lists) until a driver refuses one, then without it. */
	#fields: readonly QueryField[] = GPU_QUERY_FIELDS;
	readonly #healthHelpTimeoutMs: number | null;
	#halted = false;
	#current: LoopRun | null = null;
	#nextBackoffMs: number;
	#restartTimer: NodeJS.Timeout | null = null;

	constructor(options: GpuLoopOptions) {
		this.#command = options.command;
		this.#env = options.env;
		this.#intervalMs = options.intervalMs;
		this.#firstSampleTimeoutMs = options.firstSampleTimeoutMs;
		this.#staleAfterMs = options.staleAfterMs;
		this.#backoff = options.backoff;
		this.#now = options.now;
		this.#groups = options.groups;
		this.#onChange = options.onChange;
		this.#afterSample = options.afterSample;
		this.#nextBackoffMs = this.#backoff.initial;
		this.#healthHelpTimeoutMs = options.healthHelpTimeoutMs;
	}

	start(): void {
		if (this.#healthHelpTimeoutMs === null) {
			this.#spawnLoop();
			return;
		}
		// Once per start, not per restart: the help is the installed tool's, and a field refused later is dropped anyway.
		const asked = {command: this.#command, env: this.#env, timeoutMs: this.#healthHelpTimeoutMs, groups: this.#groups};
		void askHealthFields(asked).then(health => {
			this.#fields = [...this.#fields, ...health];
			this.#spawnLoop();
		});
	}

	getState(): GpuState {
		return this.#state;
	}

	/** No more spawns, timers or states, for good. A child still running stays in `groups`, for the owner to end. */
	halt(): void {
		this.#halted = true;
		if (this.#restartTimer !== null) clearTimeout(this.#restartTimer);
		this.#restartTimer = null;
		if (this.#current !== null) this.#finishLoop(this.#current);
	}

	#spawnLoop(): void {
		if (this.#halted) return;
		let child: ChildProcess;
		try {
			child = spawnInOwnGroup(this.#command, gpuLoopArgs(this.#intervalMs, this.#fields), this.#env);
		} catch (error) {
			this.#scheduleRestart(`cannot start ${this.#command}: ${errorMessage(error)}`, null);
			return;
		}
		const run: LoopRun = {
			child,
			fields: this.#fields,
			assembler: new GpuSampleAssembler(),
			text: [],
			warning: null,
			samples: 0,
			watchdog: null,
			finished: false,
		};
		this.#current = run;
		this.#groups.track(child);
		// `on`, not `once`: a second 'error' without a listener would be thrown at traintop.
		child.on('error', error => this.#onLoopSpawnError(run, error));
		const tooLong = (): void => this.#onTooLong(run);
		readCappedLines(child.stdout, MAX_LINE_BYTES, line => this.#onLoopLine(run, line, 'stdout'), tooLong);
		readCappedLines(child.stderr, MAX_LINE_BYTES, line => this.#onLoopLine(run, line, 'stderr'), tooLong);
		child.once('exit', (code, signal) => void this.#onLoopExit(run, code, signal));
		this.#armWatchdog(run);
	}

	#onLoopSpawnError(run: LoopRun, error: Error): void {
		if (run.finished) return;
		this.#finishLoop(run);
		this.#groups.forget(run.child);
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
			// No NVIDIA tooling on this machine: nothing to retry.
			const where = this.#command.includes('/') || this.#command.includes('\\') ? '' : ' on PATH';
			this.#setState({status: 'absent', reason: `${this.#command} not found${where}`});
			return;
		}
		this.#scheduleRestart(`cannot start ${this.#command}: ${errorMessage(error)}`, null);
	}

	#onLoopLine(run: LoopRun, line: string, stream: 'stdout' | 'stderr'): void {
		if (run.finished) return;
		const read = readRunLine(run, line, stream);
		if (read.kind === 'samples') {
			for (const sample of read.samples) this.#onSample(run, sample);
		} else if (read.kind === 'warning' && this.#state.status === 'ok' && this.#state.warning !== run.warning) {
			this.#setState({...this.#state, warning: run.warning});
		}
	}

	#onSample(run: LoopRun, sample: GpuSample): void {
		run.samples++;
		run.text = [];
		this.#nextBackoffMs = this.#backoff.initial;
		this.#armWatchdog(run);
		this.#setState({status: 'ok', gpus: sample.gpus, sampledAt: this.#now(), warning: run.warning});
		this.#afterSample();
	}

	/** Restarts the staleness watchdog: the first sample gets `firstSampleTimeoutMs`, later ones `staleAfterMs`. */
	#armWatchdog(run: LoopRun): void {
		if (run.watchdog !== null) clearTimeout(run.watchdog);
		const limitMs = run.samples === 0 ? this.#firstSampleTimeoutMs : this.#staleAfterMs;
		// The monotonic clock: the wall clock can jump, and the question is how long traintop itself ran.
		const armedAt = performance.now();
		run.watchdog = setTimeout(() => this.#onStale(run, limitMs, armedAt), limitMs);
	}

	#onStale(run: LoopRun, limitMs: number, armedAt: number): void {
		if (run.finished) return;
		// Fired far later than asked: traintop itself did not run (SIGSTOP, Ctrl-Z, a suspended machine, a blocked
		// event loop). nvidia-smi went on meanwhile, its rows are waiting in the pipe and are read right after this
		// timer: its window starts again now instead of blaming it (the pause is said by system/pause-watch.ts).
		if (performance.now() - armedAt - limitMs > Math.max(LATE_TIMER_MS, limitMs / 2)) {
			this.#armWatchdog(run);
			return;
		}
		const said = firstMeaningfulLine(run.text);
		const what =
			run.samples === 0
				? `no sample within ${formatDuration(limitMs / 1000)}`
				: `no sample for ${formatDuration(limitMs / 1000)}`;
		this.#abandon(run, `nvidia-smi stopped answering: ${what}${said === null ? '' : `; it said: ${said}`}`);
	}

	/** A line past MAX_LINE_BYTES: whatever it is printing, it is not samples; a failure like any other. */
	#onTooLong(run: LoopRun): void {
		if (run.finished) return;
		this.#abandon(run, `nvidia-smi printed a line of more than ${MAX_LINE_BYTES / 1024} KiB without a newline`);
	}

	/** Gives up on a run that still lives, and starts another after the backoff. */
	#abandon(run: LoopRun, message: string): void {
		this.#finishLoop(run);
		// Hung, maybe in the driver: end its whole group (a helper may hold its stdout) before starting another.
		void this.#groups.terminate(run.child);
		this.#scheduleRestart(message, run.child);
	}

	async #onLoopExit(run: LoopRun, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
		if (run.finished) return;
		// 'exit' can come before the last lines have been read (the error text, typically).
		const closed = await waitForOutputEnd(run.child, OUTPUT_DRAIN_MS);
		if (run.finished) return;
		this.#finishLoop(run);
		if (closed) {
			this.#groups.forget(run.child);
			releasePipes(run.child);
		} else {
			void this.#groups.terminate(run.child);
		}
		const end = runEnd(run, code, signal, this.#state.status === 'ok');
		if (end.kind === 'fewer-fields') {
			// An older driver that lacks a sensor field refused the whole query: ask again at once without it.
			this.#fields = end.fields;
			void waitForExit(run.child).then(() => this.#spawnLoop());
			return;
		}
		this.#scheduleRestart(end.kind === 'keep' ? null : end.message, run.child);
	}

	#finishLoop(run: LoopRun): void {
		run.finished = true;
		run.assembler.reset();
		if (run.watchdog !== null) clearTimeout(run.watchdog);
		run.watchdog = null;
		if (this.#current === run) this.#current = null;
	}

	/**
	 * Restarts the loop after the current backoff, which then doubles. `message` null keeps the current state.
	 * The new loop starts only once the `previous` one has exited: a driver-wedged nvidia-smi can be unkillable,
	 * and piling up more of them would make things worse.
	 */
	#scheduleRestart(message: string | null, previous: ChildProcess | null): void {
		if (this.#halted) return;
		const delayMs = this.#nextBackoffMs;
		this.#nextBackoffMs = Math.min(this.#nextBackoffMs * 2, this.#backoff.max);
		if (message !== null) this.#setState({status: 'error', message, retryAt: this.#now() + delayMs});
		this.#restartTimer = setTimeout(() => {
			this.#restartTimer = null;
			if (previous === null) this.#spawnLoop();
			else void waitForExit(previous).then(() => this.#spawnLoop());
		}, delayMs);
	}

	#setState(state: GpuState): void {
		if (this.#halted) return;
		// Named, so that the views say whose words these are (format/gpu-state.ts).
		this.#state = {...state, source: 'nvidia-smi'};
		this.#onChange(this.#state);
	}
}

// Per-process GPU memory for NvidiaSmiReader: `nvidia-smi --query-compute-apps` one-shots, never two in flight, and
// only while the devices answer. Everything a call can do wrong becomes the table's `error`; nothing here throws.
//
// One-shots rather than a second loop: a one-shot cannot be orphaned for long if traintop is SIGKILLed (it ends
// by itself), while an idle compute-apps loop prints nothing, so it would never hit SIGPIPE and would live on.

import {errorMessage} from '../core/errors.js';
import {formatDuration} from '../format/duration.js';
import type {ChildProcess} from 'node:child_process';
import {NO_GPU_PROCESSES, type GpuProcessTable} from '../core/types.js';
import {computeAppsArgs, firstMeaningfulLine, isWarningLine, parseComputeAppsOutput} from './nvidia-smi-parse.js';
import {releasePipes, spawnInOwnGroup, waitForExit, waitForOutputEnd} from './process-group.js';

/** After 'exit', how long the last lines may take to come out of the pipes (they may never, see process-group.ts). */
export const OUTPUT_DRAIN_MS = 100;

/**
 * A table of a few hundred processes is a few KiB; more than this is not a table (a line that never ends) and would
 * otherwise be kept until the timeout, at up to a GB a second.
 */
const MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * The owner's bookkeeping of child process groups: every child the poller starts is tracked there, so that the
 * owner's stop() and killNow() reach it too, however the poller is doing with it.
 */
export interface ChildGroups {
	/** A new child: its group counts as live until forget(), or until a terminate() has ended it. */
	track(child: ChildProcess): void;
	/** Nothing of the child's group is left: it never started, or it exited and its pipes closed. */
	forget(child: ChildProcess): void;
	/** Ends the child's whole group (SIGTERM, then SIGKILL); resolves once that is done or given up. */
	terminate(child: ChildProcess): Promise<void>;
}

export interface ComputeAppsPollerOptions {
	command: string;
	env: NodeJS.ProcessEnv | undefined;
	/** Cadence of the one-shots, start to start; 0 turns them off. */
	intervalMs: number;
	/** Hard limit for one call. */
	timeoutMs: number;
	/** Clock for `sampledAt` (epoch ms). */
	now: () => number;
	groups: ChildGroups;
	/** Runs whenever getTable() has changed: a new table, or an error on the last one. */
	onChange: () => void;
}

interface QueryRun {
	readonly child: ChildProcess;
	readonly timer: NodeJS.Timeout;
	finished: boolean;
}

export class ComputeAppsPoller {
	readonly #command: string;
	readonly #env: NodeJS.ProcessEnv | undefined;
	readonly #intervalMs: number;
	readonly #timeoutMs: number;
	readonly #now: () => number;
	readonly #groups: ChildGroups;
	readonly #onChange: () => void;

	#table: GpuProcessTable = NO_GPU_PROCESSES;
	#devicesOk = false;
	#wanted = true;
	#halted = false;
	/** The call in flight; it stays set after a timeout until the hung child's group is gone. */
	#run: QueryRun | null = null;
	/** The next call, waiting for its turn. */
	#timer: NodeJS.Timeout | null = null;
	#lastQueryAt: number | null = null;

	constructor(options: ComputeAppsPollerOptions) {
		this.#command = options.command;
		this.#env = options.env;
		this.#intervalMs = options.intervalMs;
		this.#timeoutMs = options.timeoutMs;
		this.#now = options.now;
		this.#groups = options.groups;
		this.#onChange = options.onChange;
	}

	getTable(): GpuProcessTable {
		return this.#table;
	}

	/** The devices answer (a new sample): schedules the next call unless one is already waiting or in flight. */
	kick(): void {
		this.#devicesOk = true;
		this.#schedule();
	}

	/** The devices stopped answering: drops the waiting call until the next kick(); one in flight still ends normally. */
	pause(): void {
		this.#devicesOk = false;
		if (this.#timer !== null) clearTimeout(this.#timer);
		this.#timer = null;
	}

	/**
	 * Whether anyone needs per-process memory now (the headless monitor: only while ranks exist). Each
	 * call forks a process, the biggest steady cost of traintop, so it is not paid for nothing.
	 */
	setWanted(wanted: boolean): void {
		this.#wanted = wanted;
		if (wanted) {
			this.#schedule();
		} else if (this.#timer !== null) {
			clearTimeout(this.#timer);
			this.#timer = null;
		}
	}

	/** No more spawns, timers or tables, for good. A child still running stays in `groups`, for the owner to end. */
	halt(): void {
		this.#halted = true;
		if (this.#timer !== null) clearTimeout(this.#timer);
		this.#timer = null;
		if (this.#run !== null) {
			this.#run.finished = true;
			clearTimeout(this.#run.timer);
			this.#run = null;
		}
	}

	/** Schedules the next call if none is pending, and only while the devices answer. */
	#schedule(): void {
		if (this.#halted || this.#intervalMs <= 0) return;
		if (this.#run !== null || this.#timer !== null || !this.#devicesOk || !this.#wanted) return;
		const sinceLast = this.#lastQueryAt === null ? Infinity : performance.now() - this.#lastQueryAt;
		const delayMs = Math.max(0, this.#intervalMs - sinceLast);
		this.#timer = setTimeout(() => {
			this.#timer = null;
			// Not ok any more: the next good sample kicks it again.
			if (this.#devicesOk && this.#wanted) this.#runQuery();
		}, delayMs);
	}

	#runQuery(): void {
		if (this.#halted) return;
		this.#lastQueryAt = performance.now();
		let child: ChildProcess;
		try {
			child = spawnInOwnGroup(this.#command, computeAppsArgs(), this.#env);
		} catch (error) {
			this.#setError(`cannot start ${this.#command}: ${errorMessage(error)}`);
			this.#schedule();
			return;
		}
		this.#groups.track(child);
		const stdout: Buffer[] = [];
		const stderr: Buffer[] = [];
		let outputBytes = 0;
		const collect = (into: Buffer[]) => (chunk: Buffer) => {
			if (run.finished) return;
			outputBytes += chunk.length;
			if (outputBytes > MAX_OUTPUT_BYTES) {
				void this.#abandon(
					run,
					`nvidia-smi --query-compute-apps printed more than ${MAX_OUTPUT_BYTES / 1_048_576} MiB`,
				);
			} else into.push(chunk);
		};
		child.stdout?.on('data', collect(stdout));
		child.stderr?.on('data', collect(stderr));
		const run: QueryRun = {
			child,
			finished: false,
			timer: setTimeout(
				() =>
					void this.#abandon(
						run,
						`nvidia-smi --query-compute-apps did not answer within ${formatDuration(this.#timeoutMs / 1000)}`,
					),
				this.#timeoutMs,
			),
		};
		this.#run = run;
		// `on`, not `once`: a second 'error' without a listener would be thrown at traintop.
		child.on('error', error => {
			if (run.finished) return;
			this.#groups.forget(child);
			this.#endRun(run, `cannot start ${this.#command}: ${errorMessage(error)}`);
		});
		// 'exit', not 'close': a helper that inherited the pipes would hold 'close' off for as long as it lives.
		child.once('exit', (code, signal) => {
			void (async () => {
				// 'exit' can come before the last output has been read (the error text, typically).
				const closed = await waitForOutputEnd(child, OUTPUT_DRAIN_MS);
				if (closed) {
					this.#groups.forget(child);
					releasePipes(child);
				} else {
					void this.#groups.terminate(child);
				}
				if (run.finished) return;
				this.#endRun(run, this.#judgeOutput(text(stdout), text(stderr), code, signal));
			})();
		});
	}

	/** The new table, or the error message when the call failed. */
	#judgeOutput(
		stdout: string,
		stderr: string,
		code: number | null,
		signal: NodeJS.Signals | null,
	): GpuProcessTable | string {
		const {processes, textLines} = parseComputeAppsOutput(stdout);
		const otherLines = [...textLines, ...stderr.split('\n')].filter(line => line.trim() !== '');
		// Exit 14 with nothing but a WARNING next to the rows (infoROM corrupted): the rows are valid.
		const warningOnly = otherLines.length > 0 && otherLines.every(isWarningLine);
		if (signal === null && (code === 0 || warningOnly)) return {processes, sampledAt: this.#now(), error: null};
		const how = signal !== null ? `killed by ${signal}` : `exit ${code}`;
		const said = firstMeaningfulLine(otherLines.filter(line => !isWarningLine(line)));
		return `${said ?? 'nvidia-smi --query-compute-apps failed'} (${how})`;
	}

	/** A call that hangs or floods: an error, and its group ended. */
	async #abandon(run: QueryRun, message: string): Promise<void> {
		if (run.finished) return;
		run.finished = true;
		clearTimeout(run.timer);
		this.#setError(message);
		// Keep it counted as in flight until its group is gone: never two of them at once.
		await this.#groups.terminate(run.child);
		await waitForExit(run.child);
		if (this.#run === run) this.#run = null;
		this.#schedule();
	}

	#endRun(run: QueryRun, outcome: GpuProcessTable | string): void {
		run.finished = true;
		clearTimeout(run.timer);
		if (this.#run === run) this.#run = null;
		if (this.#halted) return;
		if (typeof outcome === 'string') this.#setError(outcome);
		else this.#setTable(outcome);
		this.#schedule();
	}

	/** A failure keeps the last good rows. */
	#setError(message: string): void {
		this.#setTable({...this.#table, error: message});
	}

	#setTable(table: GpuProcessTable): void {
		if (this.#halted) return;
		this.#table = table;
		this.#onChange();
	}
}

/** Decoded once whole, so that a character split between two reads is kept. */
function text(chunks: readonly Buffer[]): string {
	return Buffer.concat(chunks).toString('utf8');
}

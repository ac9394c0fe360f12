import type {SlurmJob, SlurmView} from './types.js';
import {type ReadContext, readContext, readSlurmJob} from './read-job.js';

// Keeps one job's SLURM view fresh for the TUI and headless: a read at start, then one every interval (never
// below 10 s: every read is two or three RPCs to slurmctld, which the whole cluster shares), never two at once.
// current() answers at once from the last read, whatever the controller is doing.

/** slurmctld serves every user of the cluster: no job is read more often than this. */
const MIN_INTERVAL_MS = 10_000;

/**
 * The tests' own interval (ms), read here only, never a user setting: the tests against a real one-node SLURM set it
 * to see a requeue or an end within a second instead of waiting out 15 s for each change; no cluster shares theirs.
 */
const TEST_INTERVAL_ENV = 'TRAINTOP_TEST_SLURM_POLL_MS';

function intervalOf(env: NodeJS.ProcessEnv, intervalMs: number): number {
	const forTests = Number(env[TEST_INTERVAL_ENV]);
	return forTests > 0 ? forTests : Math.max(MIN_INTERVAL_MS, intervalMs);
}

export interface SlurmJobReaderOptions {
	/** '42', or '42_1' for one task of an array. */
	readonly jobId: string;
	/** The environment of the SLURM commands (SLURM_CONF picks the cluster); process.env by default. */
	readonly env?: NodeJS.ProcessEnv;
	readonly intervalMs?: number;
	/** Per command. */
	readonly timeoutMs?: number;
}

export class SlurmJobReader {
	readonly #jobId: string;
	readonly #intervalMs: number;
	readonly #context: ReadContext;
	readonly #listeners = new Set<(view: SlurmView) => void>();
	#view: SlurmView;
	#last: SlurmJob | null = null;
	#inFlight: Promise<SlurmView> | null = null;
	#timer: NodeJS.Timeout | null = null;
	#running = false;

	constructor({jobId, env = process.env, intervalMs = 15_000, timeoutMs = 5_000}: SlurmJobReaderOptions) {
		this.#jobId = jobId;
		this.#intervalMs = intervalOf(env, intervalMs);
		this.#context = readContext(env, timeoutMs);
		this.#view = {status: 'unavailable', reason: 'not read yet', readAt: Date.now(), last: null};
	}

	/** Reads now, then every interval until stop(). */
	start(): void {
		if (this.#running) return;
		this.#running = true;
		void this.#cycle();
	}

	stop(): void {
		this.#running = false;
		if (this.#timer !== null) clearTimeout(this.#timer);
		this.#timer = null;
	}

	current(): SlurmView {
		return this.#view;
	}

	/** Called after every read with its view; returns the unsubscribe function. */
	onChange(listener: (view: SlurmView) => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	/**
	 * A read now (after a signal was sent, say), sharing the one in flight if there is one; the periodic reads
	 * go on from it. Added beyond the brief's API.
	 */
	refresh(): Promise<SlurmView> {
		this.#inFlight ??= this.#read().finally(() => {
			this.#inFlight = null;
		});
		return this.#inFlight;
	}

	async #cycle(): Promise<void> {
		await this.refresh();
		if (!this.#running) return;
		this.#timer = setTimeout(() => void this.#cycle(), this.#intervalMs);
		// The reader alone must not keep traintop's process alive.
		this.#timer.unref();
	}

	async #read(): Promise<SlurmView> {
		const view = await readSlurmJob(this.#context, this.#jobId);
		if (view.status === 'ok') this.#last = view.job;
		// A controller that does not answer keeps the last job it gave, so the pane can show it as of then.
		this.#view = view.status === 'unavailable' ? {...view, last: this.#last} : view;
		for (const listener of this.#listeners) listener(this.#view);
		return this.#view;
	}
}

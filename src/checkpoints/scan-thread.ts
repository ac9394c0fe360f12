// The run dir's scan (scan.ts) on a thread of its own, for the watcher. On the main thread a rescan of a run dir of
// 100k files held the event loop for 4–6 s at a time (a 6 s hole in memory sampling, a false "nvidia-smi stopped
// answering"; issue 26): its listings, stats, JSON reads, hashes and layout matching all ran between two samples.
// Here the main thread only posts the run dir and receives the result; the thread keeps the scan's caches
// (tree-stats-cache.ts) between rescans, and its heap is capped, so a run dir too big to scan fails that scan with a
// message instead of growing the monitor without bound.

import {existsSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {Worker} from 'node:worker_threads';
import {UsageError, errorMessage} from '../core/errors.js';
import type {ScanResult} from '../core/types.js';

export interface ScanRequest {
	readonly id: number;
	readonly runDir: string;
}

export type ScanReply =
	| {readonly id: number; readonly ok: true; readonly result: ScanResult}
	| {readonly id: number; readonly ok: false; readonly usage: boolean; readonly message: string};

const WORKER_FILE = fileURLToPath(new URL('./scan-worker.js', import.meta.url));

/**
 * The thread's heap (MB). 100k entries in one scanned directory need about 100 MB; past the cap the thread dies, the
 * scan fails with that said, and the next rescan starts a new thread.
 */
const MAX_HEAP_MB = 512;

interface Pending {
	readonly resolve: (result: ScanResult) => void;
	readonly reject: (error: Error) => void;
}

export class ScanThread {
	#worker: Worker | null = null;
	#nextId = 1;
	readonly #pending = new Map<number, Pending>();
	#closed = false;

	/** Starts the thread at once: it loads the scan's modules while the monitor starts, and the first scan ends sooner. */
	constructor() {
		this.#start().unref();
	}

	/** False when running from the sources (the tests): there is no built worker file to start. */
	static available(): boolean {
		return existsSync(WORKER_FILE);
	}

	scan(runDir: string): Promise<ScanResult> {
		if (this.#closed) return Promise.reject(new Error('the scan was stopped'));
		const worker = this.#worker ?? this.#start();
		const id = this.#nextId++;
		// Held while a scan is pending, so that a caller awaiting it keeps the process alive; let go when idle.
		worker.ref();
		return new Promise((resolve, reject) => {
			this.#pending.set(id, {resolve, reject});
			worker.postMessage({id, runDir} satisfies ScanRequest);
		});
	}

	#start(): Worker {
		const worker = new Worker(WORKER_FILE, {resourceLimits: {maxOldGenerationSizeMb: MAX_HEAP_MB}});
		this.#worker = worker;
		worker.on('message', (reply: ScanReply) => {
			const pending = this.#pending.get(reply.id);
			this.#pending.delete(reply.id);
			if (this.#pending.size === 0) worker.unref();
			if (reply.ok) pending?.resolve(reply.result);
			else pending?.reject(reply.usage ? new UsageError(reply.message) : new Error(reply.message));
		});
		worker.on('error', error => {
			const why =
				(error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
					? `it needed more than ${MAX_HEAP_MB} MB`
					: errorMessage(error);
			this.#lost(worker, `the scan's thread stopped: ${why}`);
		});
		worker.on('exit', code => this.#lost(worker, `the scan's thread exited (${code})`));
		return worker;
	}

	/** The thread is gone: its pending scans fail with `why`; the next scan starts a new one. */
	#lost(worker: Worker, why: string): void {
		if (this.#worker !== worker) return;
		this.#worker = null;
		this.#rejectAll(why);
	}

	#rejectAll(why: string): void {
		const pending = [...this.#pending.values()];
		this.#pending.clear();
		for (const {reject} of pending) reject(new Error(why));
	}

	/** Ends the thread; a scan still pending fails. Idempotent. */
	async close(): Promise<void> {
		this.#closed = true;
		const worker = this.#worker;
		this.#worker = null;
		this.#rejectAll('the scan was stopped');
		await worker?.terminate();
	}
}

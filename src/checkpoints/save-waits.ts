import type {Checkpoint, CheckpointIndex} from '../core/types.js';
import {isNew} from './index-change.js';
import {firstOther, settle, unattributed, type SaveExpectation, type SaveOutcome} from './save-attribution.js';

// The watcher's waits for a save (CheckpointWatcher.awaitNewCheckpoint, awaitSave): each is told every rescan's index,
// changed or not, and decides from the checkpoints new since it began; stop() ends them all.

export class SaveWaits {
	/** Told after every rescan, changed or not; null on stop(). */
	readonly #hooks = new Set<(index: CheckpointIndex | null) => void>();
	/** The watcher's index now: what "new" is measured against when a wait begins. */
	readonly #current: () => CheckpointIndex | null;
	#stopped = false;

	constructor(current: () => CheckpointIndex | null) {
		this.#current = current;
	}

	/** A rescan's index, changed or not. */
	scanned(index: CheckpointIndex): void {
		for (const hook of [...this.#hooks]) hook(index);
	}

	/** Ends every wait (as on stop()), and any begun later at once. */
	stop(): void {
		this.#stopped = true;
		for (const hook of [...this.#hooks]) hook(null);
	}

	/**
	 * The first complete checkpoint, not complete in the index when called, whose time is at least sinceMs −
	 * TIME_SLACK_MS; null after timeoutMs or on stop(). A checkpoint partial at the call that completes later counts.
	 */
	newCheckpoint(sinceMs: number, timeoutMs: number): Promise<Checkpoint | null> {
		return this.#awaitNew<Checkpoint | null>(
			sinceMs,
			timeoutMs,
			fresh => fresh[0],
			() => null,
		);
	}

	/**
	 * The save asked for (SIGUSR1: manual, SIGTERM: emergency), told apart from one that merely came first. New as for
	 * awaitNewCheckpoint. Resolves at once with a new checkpoint of the expected kind (attributed), or with one whose
	 * layout records no kind (not attributed, with a note: it may be the one). A new one of another kind (a periodic
	 * save that landed first) is remembered while the wait goes on; at timeoutMs, or on stop(), the outcome is that
	 * one, with a note naming its kind, or nothing.
	 */
	save(sinceMs: number, timeoutMs: number, expect: SaveExpectation): Promise<SaveOutcome> {
		let other: Checkpoint | null = null;
		return this.#awaitNew<SaveOutcome>(
			sinceMs,
			timeoutMs,
			fresh => {
				const outcome = settle(fresh, expect);
				if (!outcome) other ??= firstOther(fresh, expect);
				return outcome ?? undefined;
			},
			timedOut => unattributed(other, expect, timedOut ? timeoutMs : null),
		);
	}

	/**
	 * Waits on each rescan for what `decide` makes of the checkpoints new since the call (undefined: keep waiting);
	 * `end` says what it comes to at the timeout (true) or on stop() (false).
	 */
	#awaitNew<T>(
		sinceMs: number,
		timeoutMs: number,
		decide: (fresh: readonly Checkpoint[]) => T | undefined,
		end: (timedOut: boolean) => T,
	): Promise<T> {
		const before = this.#completePaths();
		return new Promise(resolve => {
			const finish = (value: T): void => {
				clearTimeout(timer);
				this.#hooks.delete(hook);
				resolve(value);
			};
			const hook = (index: CheckpointIndex | null): void => {
				if (index === null) {
					finish(end(false));
					return;
				}
				const value = decide(index.checkpoints.filter(c => isNew(c, before, sinceMs)));
				if (value !== undefined) finish(value);
			};
			const timer = setTimeout(() => finish(end(true)), timeoutMs);
			if (this.#stopped) return finish(end(false));
			this.#hooks.add(hook);
		});
	}

	/** Paths of the complete checkpoints in the index now: what the awaits measure "new" against. */
	#completePaths(): Set<string> {
		return new Set((this.#current()?.checkpoints ?? []).filter(c => c.status === 'complete').map(c => c.path));
	}
}

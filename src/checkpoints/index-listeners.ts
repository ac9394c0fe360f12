import type {CheckpointIndex} from '../core/types.js';
import {indexSignature} from './index-change.js';
import type {IndexListener} from './watch-options.js';

// The watcher's subscribers: told of an index only when it differs from the last one they were told of (by its
// signature, index-change.ts), so a rescan that found nothing new repaints nothing.

export class IndexListeners {
	readonly #listeners = new Set<IndexListener>();
	#lastSignature: string | null = null;

	/** Returns the unsubscribe function. */
	subscribe(listener: IndexListener): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	/** A rescan's index: the listeners hear of it if it changed. */
	changed(index: CheckpointIndex): void {
		const signature = indexSignature(index);
		if (signature === this.#lastSignature) return;
		this.#lastSignature = signature;
		for (const listener of [...this.#listeners]) {
			try {
				listener(index);
			} catch {
				// a listener's bug must not stop the watcher
			}
		}
	}
}

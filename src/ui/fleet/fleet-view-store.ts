import type {FleetView} from '../../fleet/fleet.js';
import type {ObservableValue} from '../hooks/use-value.js';
import type {SnapshotSource} from './node-history.js';

// The fleet's view as the screen reads it: the same object until something changes (React compares it), renewed
// when the fleet says so (snapshots, at most once an interval; a link's state) and after a second of silence, so that the
// ages on screen (`stale 7 s`, `lost 12 s`) keep counting while a silent node sends nothing to react to.

/** The fleet as the many-node screen reads it (fleet/fleet.ts's Fleet, or a test's). */
export interface FleetSource extends SnapshotSource {
	current(): FleetView;
	subscribe(listener: (view: FleetView) => void): () => void;
}

export class FleetViewStore implements ObservableValue<FleetView> {
	#view: FleetView;
	readonly #listeners = new Set<(view: FleetView) => void>();
	readonly #off: () => void;
	readonly #clock: NodeJS.Timeout;
	#setAt = 0;

	constructor(source: FleetSource, tickMs = 1000) {
		this.#view = source.current();
		this.#off = source.subscribe(view => this.#set(view));
		// Only when the fleet has said nothing for a tick and a half: while snapshots flow it gives a view every
		// interval, and a second timer beside it would draw most seconds twice.
		this.#clock = setInterval(() => {
			if (Date.now() - this.#setAt >= tickMs * 1.5) this.#set(source.current());
		}, tickMs);
		this.#clock.unref?.();
	}

	get(): FleetView {
		return this.#view;
	}

	subscribe(listener: (view: FleetView) => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	close(): void {
		clearInterval(this.#clock);
		this.#off();
	}

	#set(view: FleetView): void {
		this.#view = view;
		this.#setAt = Date.now();
		for (const listener of this.#listeners) listener(view);
	}
}

import {useSyncExternalStore} from 'react';
import type {Snapshot} from '../../core/types.js';

/** What the TUI reads from the Monitor (core/monitor.ts implements it). */
export interface SnapshotStore {
	subscribe(listener: (snapshot: Snapshot) => void): () => void;
	getSnapshot(): Snapshot | null;
}

/** The Monitor's latest snapshot; re-renders only when the Monitor publishes a new one. */
export default function useSnapshot(store: SnapshotStore): Snapshot | null {
	return useSyncExternalStore(
		listener => store.subscribe(() => listener()),
		() => store.getSnapshot(),
	);
}

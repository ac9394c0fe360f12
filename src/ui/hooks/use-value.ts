import {useSyncExternalStore} from 'react';

/** A value that tells its subscribers when it changes (core/value-store.ts). */
export interface ObservableValue<T> {
	get(): T;
	subscribe(listener: (value: T) => void): () => void;
}

/** The value's current state; re-renders only when it changes. */
export default function useValue<T>(store: ObservableValue<T>): T {
	return useSyncExternalStore(
		listener => store.subscribe(() => listener()),
		() => store.get(),
	);
}

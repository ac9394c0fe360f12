import type {SinkTrouble} from './notice.js';

// A sink in trouble says so once per kind of trouble: a command that fails on every notice, or a receiver down all
// night, must not print a line per notice over the user's screen. Every occurrence is still counted, for the summary
// a sink gives at close.

export interface TroubleLedger<K extends string> {
	/** Counts one (or `count`) of `kind`; says `message()` the first time that kind happens. */
	note(kind: K, message: () => string, count?: number): void;
	/** How many of each kind happened so far. */
	counts(): Readonly<Partial<Record<K, number>>>;
	/** Whether some of `kind` happened after the one message said it: what a summary at close still has to tell. */
	unsaid(kind: K): boolean;
}

export function troubleLedger<K extends string>(sink: string, trouble: SinkTrouble): TroubleLedger<K> {
	const seen: Partial<Record<K, number>> = {};
	const saidAt: Partial<Record<K, number>> = {};
	return {
		note(kind, message, count = 1) {
			const before = seen[kind] ?? 0;
			seen[kind] = before + count;
			if (before > 0) return;
			saidAt[kind] = count;
			try {
				trouble(sink, message());
			} catch {
				// The view's printer failing must not stop a sink.
			}
		},
		counts: () => ({...seen}),
		unsaid: kind => (seen[kind] ?? 0) > (saidAt[kind] ?? 0),
	};
}

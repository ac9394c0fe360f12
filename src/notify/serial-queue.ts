// The one shape of the command and webhook sinks: notices done one at a time, in order, by work the caller never
// waits for; a bounded wait list (a receiver that is down for an hour must not grow traintop's memory), the oldest
// dropped first, since the newest tells the state now.

/** Notices that may wait behind the one being done. */
export const QUEUE_LIMIT = 100;

export interface SerialQueue<T> {
	/** Queues `item`, or does it at once when nothing is running; never waits and never throws. */
	push(item: T): void;
	/** Takes no more; drops what waits (told to `onDrop`); resolves when the running work has ended. */
	close(): Promise<void>;
}

/**
 * `work` runs for one item at a time (it must not reject: a rejection is swallowed so the next one still runs);
 * `onDrop(count)` hears of items dropped from a full list or at close.
 */
export function serialQueue<T>(
	work: (item: T) => Promise<void>,
	onDrop: (count: number, why: 'full' | 'closed') => void,
	limit = QUEUE_LIMIT,
): SerialQueue<T> {
	const waiting: T[] = [];
	let running: Promise<void> | null = null;
	let closed = false;

	function next(): void {
		const item = waiting.shift();
		if (item === undefined) {
			running = null;
			return;
		}
		running = work(item).then(next, next);
	}

	return {
		push(item) {
			if (closed) return;
			waiting.push(item);
			if (waiting.length > limit) {
				waiting.shift();
				onDrop(1, 'full');
			}
			if (running === null) next();
		},
		async close() {
			closed = true;
			const left = waiting.splice(0).length;
			if (left > 0) onDrop(left, 'closed');
			// `running` is replaced as each item ends; after the splice only the one running can still be there.
			while (running !== null) await running;
		},
	};
}

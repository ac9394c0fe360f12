import type {Fleet} from './fleet.js';
import {exitsOnLinks, exitsOnSnapshot, type NodeExit, narrowExits, nodeSettled, startExits} from './node-exits.js';
import type {NodeSend} from './send-across.js';

// After an emergency signal across nodes: each node's share of the job followed in that node's snapshots (and its
// link) until every node's ranks have exited or the node was lost, or the timeout. Started before the send, so a
// rank that exits before another node's agent has replied is not missed; narrowed after it to the ranks it reached.

/** Every node's share as last seen; `timedOut`: the timeout came first (some may still be running). */
export interface ExitReport {
	readonly nodes: readonly NodeExit[];
	readonly timedOut: boolean;
}

export interface NodeExitWatch {
	/**
	 * Narrowed to the ranks the signal reached, resolves once every node is settled (node-exits.ts) or at the
	 * timeout; `onChange` hears each change before that. Stops the watch.
	 */
	settle(
		reached: readonly {readonly node: string; readonly pid: number}[],
		onChange?: (report: ExitReport) => void,
	): Promise<ExitReport>;
	/** Stops following the fleet (a settle still waiting resolves with what it has, as timed out). */
	stop(): void;
}

/** Follows `sends`' ranks in `fleet` from now; the timeout counts from `sinceMs` (the send). */
export function watchNodeExits(
	fleet: Pick<Fleet, 'current' | 'onSnapshot' | 'subscribe'>,
	sends: readonly NodeSend[],
	sinceMs: number,
	timeoutMs: number,
): NodeExitWatch {
	let exits = startExits(sends);
	let changed: () => void = () => undefined;
	let finish: ((timedOut: boolean) => void) | null = null;
	const offSnapshot = fleet.onSnapshot((node, snapshot) => {
		exits = exitsOnSnapshot(exits, node, snapshot);
		changed();
	});
	const offLinks = fleet.subscribe(view => {
		const next = exitsOnLinks(exits, view.nodes, view.time);
		if (next.some((one, i) => one !== exits[i])) {
			exits = next;
			changed();
		}
	});
	let timer: NodeJS.Timeout | null = null;
	const stop = (): void => {
		offSnapshot();
		offLinks();
		if (timer) clearTimeout(timer);
		finish?.(true);
	};
	return {
		stop,
		settle: (reached, onChange) =>
			new Promise(resolve => {
				const now = fleet.current();
				exits = exitsOnLinks(narrowExits(exits, reached), now.nodes, now.time);
				finish = timedOut => {
					finish = null;
					stop();
					resolve({nodes: exits, timedOut});
				};
				changed = () => {
					if (exits.every(nodeSettled)) finish?.(false);
					else onChange?.({nodes: exits, timedOut: false});
				};
				timer = setTimeout(() => finish?.(true), Math.max(0, sinceMs + timeoutMs - Date.now()));
				changed();
			}),
	};
}

import {formatAge} from '../format/duration.js';
import {printable} from '../format/printable.js';
import {SKEW_NOTED_MS, STALE_AFTER_INTERVALS, type NodeView} from './node-state.js';

// A node's link in words, for the headless lines and the nodes pane alike. What an agent said (its version, why its
// link ended) is remote text: printable here too, where the words are made, not only where it was received.

/** `gpu1 at 10.0.0.1`: the node's name, and where it is reached when that says more (a --hosts name is its host). */
export function nodeLabel(view: Pick<NodeView, 'name' | 'address'>): string {
	const name = printable(view.name);
	return view.address === null || view.address === view.name ? name : `${name} at ${printable(view.address)}`;
}

/** `+3.2 s` / `−1 m 05 s`: a node's clock against ours, when off by more than a message's latency explains. */
function skewWords(view: NodeView): string | null {
	if (view.skewMs === null || Math.abs(view.skewMs) < SKEW_NOTED_MS) return null;
	const sign = view.skewMs > 0 ? 'ahead of' : 'behind';
	return `its clock is ${formatAge(Math.abs(view.skewMs) / 1000)} ${sign} this one`;
}

/** `connected (traintop 0.1.0, agent pid 4242)`, `stale: no message for 7 s`, `lost: agent exited 255: …`. */
export function linkWords(view: NodeView, now: number): string {
	switch (view.state) {
		case 'connecting':
			return view.reconnects > 0 ? `reconnecting (attempt ${view.reconnects + 1})` : 'connecting';
		case 'connected': {
			const who = view.hello ? ` (traintop ${printable(view.hello.version)}, agent pid ${view.hello.pid})` : '';
			const skew = skewWords(view);
			return `connected${who}${skew ? `; ${skew}` : ''}`;
		}
		case 'stale': {
			const silent = view.lastMessageAt === null ? '' : ` for ${formatAge((now - view.lastMessageAt) / 1000)}`;
			return `stale: no message${silent} (over ${STALE_AFTER_INTERVALS} intervals)`;
		}
		case 'lost':
			return `lost: ${printable(view.problem ?? 'its agent ended')}; reconnecting`;
	}
}

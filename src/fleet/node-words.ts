import {formatAge} from '../format/duration.js';
import {SKEW_NOTED_MS, STALE_AFTER_INTERVALS, type NodeView} from './node-state.js';

// A node's link in words, for the headless lines and the nodes pane alike.

/** `+3.2 s` / `−1 m 05 s`: a node's clock against ours, when off by more than a message's latency explains. */
function skewWords(view: NodeView): string | null {
	if (view.skewMs === null || Math.abs(view.skewMs) < SKEW_NOTED_MS) return null;
	const sign = view.skewMs > 0 ? 'ahead' : 'behind';
	return `its clock is ${formatAge(Math.abs(view.skewMs) / 1000)} ${sign} of this one`;
}

/** `connected (traintop 0.1.0, agent pid 4242)`, `stale: no message for 7 s`, `lost: agent exited 255: …`. */
export function linkWords(view: NodeView, now: number): string {
	switch (view.state) {
		case 'connecting':
			return view.reconnects > 0 ? `reconnecting (attempt ${view.reconnects + 1})` : 'connecting';
		case 'connected': {
			const who = view.hello ? ` (traintop ${view.hello.version}, agent pid ${view.hello.pid})` : '';
			const skew = skewWords(view);
			return `connected${who}${skew ? `; ${skew}` : ''}`;
		}
		case 'stale': {
			const silent = view.lastMessageAt === null ? '' : ` for ${formatAge((now - view.lastMessageAt) / 1000)}`;
			return `stale: no message${silent} (over ${STALE_AFTER_INTERVALS} intervals)`;
		}
		case 'lost':
			return `lost: ${view.problem ?? 'its agent ended'}; reconnecting`;
	}
}

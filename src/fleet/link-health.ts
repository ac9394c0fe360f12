import type {NodeState} from './node-state.js';

// When an agent connection is ended and made again: an ssh that hangs on connect gives no hello; a hung agent or a
// dead link ssh has not noticed goes silent. Judged on a clock, so a bad link never waits on anything.

export interface LinkLimits {
	/** A connection silent this long is ended. */
	readonly hungAfterMs: number;
	/** A connection without a hello this long is ended. */
	readonly helloTimeoutMs: number;
}

/** Why the connection carrying `nodes`, started at `startedAt`, should be ended now; null while it is well. */
export function linkEndWhy(
	nodes: readonly NodeState[],
	startedAt: number,
	now: number,
	limits: LinkLimits,
): string | null {
	const heard = nodes.some(node => node.state(now) !== 'connecting');
	if (!heard)
		return now - startedAt > limits.helloTimeoutMs ? `gave no hello in ${limits.helloTimeoutMs / 1000} s` : null;
	const silent = nodes.every(node => (node.silentMs(now) ?? now - startedAt) > limits.hungAfterMs);
	return silent ? `silent for ${Math.round(limits.hungAfterMs / 1000)} s (hung): ended` : null;
}

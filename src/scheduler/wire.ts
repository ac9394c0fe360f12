import {stateWireKeys} from './kinds.js';
import type {SchedulerState} from './types.js';

// The scheduler's state on the agent protocol (agent/protocol.ts). `scheduler` carries the neutral part (an
// addition); a scheduler with a key of its own from before the seam keeps sending its detail there, so a
// reader of that key reads what it always read, and the detail is not sent twice. A scheduler added since has no
// such key: its detail goes in `scheduler`. The keys are the schedulers' light parts' (kinds.ts), not the
// registry's, because the registry's entries reach the signal plan and the transports, which read the protocol.

/** The wire's scheduler keys for `state`: `scheduler` without its detail, and the scheduler's own key with it. */
export function schedulerWire(state: SchedulerState | null | undefined): Record<string, unknown> {
	if (state === undefined) return {};
	if (state === null) return {scheduler: null};
	const own = stateWireKeys().get(state.kind);
	if (own === undefined) return {scheduler: state};
	const {detail, ...neutral} = state;
	return {scheduler: neutral, [own.key]: detail ?? null};
}

/** The keys schedulerWire may write: a snapshot's scheduler part is left out (unchanged) by leaving all of them out. */
export function schedulerWireKeys(): string[] {
	return ['scheduler', ...[...stateWireKeys().values()].map(own => own.key)];
}

/**
 * The state from a wire snapshot; undefined when it carries none of the keys (unchanged since the last). An older
 * agent sends only the scheduler's own key.
 */
export function stateFromWire(wire: Readonly<Record<string, unknown>>): SchedulerState | null | undefined {
	const neutral = wire.scheduler as SchedulerState | null | undefined;
	for (const [kind, own] of stateWireKeys()) {
		if (!(own.key in wire)) continue;
		if (neutral !== undefined && neutral !== null && neutral.kind !== kind) continue;
		return own.fromWire(wire[own.key], neutral ?? null);
	}
	return neutral;
}

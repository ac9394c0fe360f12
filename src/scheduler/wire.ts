import {schedulers} from './registry.js';
import type {SchedulerState} from './types.js';

// The scheduler's state on the agent protocol (agent/protocol.ts). `scheduler` carries the neutral part (an
// addition); a scheduler with a key of its own from before (SLURM: `slurm`) keeps sending its detail there, so a
// reader of that key reads what it always read, and the detail is not sent twice.

/** The wire's scheduler keys for `state`: `scheduler` without its detail, and the scheduler's own key with it. */
export function schedulerWire(state: SchedulerState | null | undefined): Record<string, unknown> {
	if (state === undefined) return {};
	if (state === null) return {scheduler: null};
	const own = schedulers().find(entry => entry.kind === state.kind)?.wire;
	if (own === undefined) return {scheduler: state};
	const {detail, ...neutral} = state;
	return {scheduler: neutral, [own.key]: detail ?? null};
}

/** The keys schedulerWire may write: a snapshot's scheduler part is left out (unchanged) by leaving all of them out. */
export function schedulerWireKeys(): string[] {
	return ['scheduler', ...schedulers().flatMap(entry => (entry.wire ? [entry.wire.key] : []))];
}

/**
 * The state from a wire snapshot; undefined when it carries none of the keys (unchanged since the last). An older
 * agent sends only the scheduler's own key.
 */
export function stateFromWire(wire: Readonly<Record<string, unknown>>): SchedulerState | null | undefined {
	const neutral = wire.scheduler as SchedulerState | null | undefined;
	for (const entry of schedulers()) {
		const own = entry.wire;
		if (own === undefined || !(own.key in wire)) continue;
		if (neutral !== undefined && neutral !== null && neutral.kind !== entry.kind) continue;
		return own.fromWire(wire[own.key], neutral ?? null);
	}
	return neutral;
}

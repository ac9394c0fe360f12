import type {JobEventKind} from '../core/job-types.js';
import type {Level} from '../core/level.js';
import {NOTIFIABLE_KINDS, type NotifyEventName} from './event-names.js';

// Which events notify (`--notify-events`), as the notice source asks it: from what level a metric's change opens an
// episode, whether a job turning not-ready does, and which job event kinds raise. What ends an episode is not
// selected: a resolve follows its raise whatever the list says.

export interface Selection {
	/**
	 * The lowest level at which a metric's change (RAM, swap, each GPU) opens an episode, which ends when the level
	 * falls under it: `critical` for `crit`, `warn` for `warn` (the wider, when both are named); null: none.
	 */
	readonly levelLine: Level | null;
	/** A job's preemption readiness turning not-ready opens an episode, which ends when it is anything else. */
	readonly notReady: boolean;
	/** Whether an event of this kind raises (or is told once); a kind not listed never does. */
	raises(kind: JobEventKind): boolean;
}

export function notifySelection(names: readonly NotifyEventName[]): Selection {
	const all = names.includes('all');
	const kinds = new Set<JobEventKind>(all ? NOTIFIABLE_KINDS : []);
	for (const name of names) if ((NOTIFIABLE_KINDS as readonly string[]).includes(name)) kinds.add(name as JobEventKind);
	const levelLine: Level | null = all || names.includes('warn') ? 'warn' : names.includes('crit') ? 'critical' : null;
	return {levelLine, notReady: all || names.includes('not-ready'), raises: kind => kinds.has(kind)};
}

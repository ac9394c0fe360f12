import type {JobEvent, JobEventKind} from './job-types.js';

// Where each kind of job event is shown, in one table. The alerts pane is for what needs a look: a problem (a rank
// that died or exited with an error, a stall, a stop, OVERDUE, a requeue, a run dir gone or unreadable, a node lost or
// differing from cluster.yaml) and its end (running again, readable again, connected), beside the memory level
// changes. A save that landed is the job doing its work: it belongs on the checkpoints pane (its count and timeline)
// and the charts' save marks, never among the alerts, where a job saving every 20 s pushed the RAM CRIT out of sight
// ("6 level changes, 50 events", all saves). Headless and --json still print every event as it happens.

export type EventPlace = 'alerts' | 'checkpoints';

/**
 * Where an event of each kind goes while its level is ok. At WARN or CRIT every kind is an alert, whatever this says:
 * a save judged a problem (partial, suspicious) is one.
 */
export const EVENT_PLACE: Readonly<Record<JobEventKind, EventPlace>> = {
	'rank-exited': 'alerts',
	'rank-stopped': 'alerts',
	'rank-stalled': 'alerts',
	'rank-resumed': 'alerts',
	'job-stalled': 'alerts',
	'job-resumed': 'alerts',
	'job-hung': 'alerts',
	'job-progressing': 'alerts',
	'job-ended': 'alerts',
	'save-seen': 'checkpoints',
	overdue: 'alerts',
	'run-dir-replaced': 'alerts',
	'run-dir-access': 'alerts',
	requeued: 'alerts',
	resumed: 'alerts',
	'node-link': 'alerts',
	'node-declared': 'alerts',
	'gpu-health': 'alerts',
	'memory-growing': 'alerts',
	'memory-steady': 'alerts',
};

export function eventPlace(event: Pick<JobEvent, 'kind' | 'level'>): EventPlace {
	return event.level === 'ok' ? EVENT_PLACE[event.kind] : 'alerts';
}

/** The events of the alerts pane, oldest first as given. */
export function alertEvents(events: readonly JobEvent[]): JobEvent[] {
	return events.filter(event => eventPlace(event) === 'alerts');
}

/**
 * The newest `limit` events of each place, oldest first: a bounded history in which a burst of saves never pushes out
 * the last problem (nor a burst of problems the last saves).
 */
export function keepRecent(events: readonly JobEvent[], limit: number): JobEvent[] {
	const left: Record<EventPlace, number> = {alerts: limit, checkpoints: limit};
	const kept: JobEvent[] = [];
	for (let i = events.length - 1; i >= 0; i--) {
		const event = events[i]!;
		const place = eventPlace(event);
		if (left[place] <= 0) continue;
		left[place] -= 1;
		kept.push(event);
	}
	return kept.reverse();
}

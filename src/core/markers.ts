import type {Alert, JobEvent, Level, MetricId} from './types.js';

// What the history charts mark on their time axis: the saves, the alerts and the exits, so that "memory
// climbed, the save came, the job died" reads as one picture. Derived from the Monitor's alerts and job
// events as they happen; the Monitor keeps a bounded number of them.

export type MarkerKind = 'save' | 'alert' | 'exit';

export interface Marker {
	/** Epoch ms. */
	readonly time: number;
	readonly kind: MarkerKind;
	readonly level: Level;
	/** The metric of an alert: only its chart marks it. Absent: every chart (a save, an exit). */
	readonly metric?: MetricId;
}

const EVENT_MARKERS: Partial<Record<JobEvent['kind'], MarkerKind>> = {
	'save-seen': 'save',
	'rank-exited': 'exit',
	'job-ended': 'exit',
	'rank-stalled': 'alert',
	'job-stalled': 'alert',
	'job-hung': 'alert',
	'rank-stopped': 'alert',
	overdue: 'alert',
	'memory-growing': 'alert',
	// The run ended there: its scheduler put the job back in the queue.
	requeued: 'exit',
};

/** A level change upwards is an alert worth a mark; a return to ok is not. */
export function alertMarker(alert: Alert): Marker | null {
	if (alert.to === 'ok') return null;
	return {
		time: alert.time,
		kind: 'alert',
		level: alert.to,
		metric: alert.metric,
	};
}

/** Saves, exits, stalls and overdue saves; the rest of a job's life (resumes) is not marked. */
export function eventMarker(event: JobEvent): Marker | null {
	const kind = EVENT_MARKERS[event.kind];
	return kind ? {time: event.time, kind, level: event.level} : null;
}

import type {JobEventKind} from '../core/job-types.js';

// What `--notify-events` (config key `notifyEvents`) may name: a level class for the metrics' thresholds (RAM, swap,
// each GPU), a job event's kind, or `not-ready` for a job's preemption readiness. One list, so that the option's
// check, its help, the docs and the notifier agree.

/** The job events a notice can follow; their pairs (hung → progressing, overdue → a save) resolve an episode. */
export const NOTIFIABLE_KINDS = [
	'rank-exited',
	'rank-stopped',
	'rank-stalled',
	'job-stalled',
	'job-hung',
	'job-ended',
	'overdue',
	'run-dir-replaced',
	'run-dir-access',
	'requeued',
	'resumed',
	'node-link',
	'node-declared',
	'gpu-health',
	'memory-growing',
	'save-seen',
] as const satisfies readonly JobEventKind[];

/**
 * Every name the list may hold: `crit` (a metric at its critical threshold), `warn` (at its warn line and above), a job
 * event's kind, `not-ready`; `all` stands for every one of them.
 */
export const NOTIFY_EVENT_NAMES = ['crit', 'warn', ...NOTIFIABLE_KINDS, 'not-ready', 'all'] as const;

export type NotifyEventName = (typeof NOTIFY_EVENT_NAMES)[number];

/**
 * The default: CRIT levels, rank exits and deaths, a hang (a whole job without CPU, or no progress), readiness
 * turning not-ready, overdue saves, the job's end.
 */
export const DEFAULT_NOTIFY_EVENTS: readonly NotifyEventName[] = [
	'crit',
	'rank-exited',
	'job-stalled',
	'job-hung',
	'not-ready',
	'overdue',
	'job-ended',
];

export function isNotifyEventName(name: string): name is NotifyEventName {
	return (NOTIFY_EVENT_NAMES as readonly string[]).includes(name);
}

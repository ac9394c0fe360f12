import type {SchedulerEntry} from './entry.js';

// No scheduler: a job started by hand (torchrun, a plain python). It runs inside no scheduler's job, so nothing is
// followed: no deadline, no requeues, and signals go by the guarded local send only.

export const noScheduler: SchedulerEntry = {
	kind: 'none',
	name: 'no scheduler',
	jobOfTraintop: () => null,
	follow: jobId => {
		const state = {
			kind: 'none',
			name: 'no scheduler',
			status: 'not-found',
			jobId,
			readAt: Date.now(),
			job: null,
			reason: null,
		} as const;
		return {current: () => state};
	},
};

import type {LauncherFacts} from '../core/readiness.js';
import type {Job} from '../core/job-types.js';

// What the launcher between a preemption's signal and the ranks does with it, as the launcher's own code does it.
// A first entry (torchrun, from the recording in test/fixtures/torchrun-term/); the table grows launcher by launcher.

/** The launcher's facts for a job, or null when its launcher is none this table knows. */
export function launcherFacts(job: Job): LauncherFacts | null {
	const launcher = job.launcher;
	if (launcher === null || job.identity !== 'elastic') return null;
	return {
		name: 'torchrun',
		pid: launcher.pid,
		forwards: ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'],
		killAfterS: 30,
		source: 'torch 2.11 torch/distributed/elastic/multiprocessing/api.py',
		exitCode: 1,
		disposition: null,
	};
}

import {expect, test} from 'vitest';
import {slurmState} from '../../../src/slurm/scheduler-state.js';
import type {SlurmJob, SlurmView} from '../../../src/slurm/types.js';
import type {Snapshot} from '../../../src/core/types.js';
import {SlurmReport} from '../../../src/slurm/views/headless-report.js';
import {slurmJob} from '../../helpers/slurm-job.js';

// The headless view's SLURM lines name what the controller says: the job's name (the user's `--job-name`), its
// reason, partition and node list, and the controller's error text. Each is shown with its controls as escapes.

const T0 = Date.UTC(2026, 10, 24, 9, 0, 0);
const PWNED = '\u001b]0;PWNED\u0007\u001b[2J';
const SHOWN = '\\e]0;PWNED\\x07\\e[2J';

const snapshot = (view: SlurmView) =>
	({scheduler: slurmState(view), checkpoints: null, time: T0}) as unknown as Snapshot;

test("a SLURM job's name, reason and the controller's error text are printed escaped", () => {
	const report = new SlurmReport();
	const job: SlurmJob = slurmJob(T0 + 60_000, {name: `train${PWNED}`, state: 'PENDING', reason: `Begin${PWNED}`});
	const lines = [
		...report.update(snapshot({status: 'ok', job, readAt: T0})).lines,
		...report.update(snapshot({status: 'unavailable', reason: `slurmctld${PWNED}`, readAt: T0, last: job})).lines,
	];
	const text = lines.join('\n');
	expect(text).toContain(`train${SHOWN}`);
	expect(text).toContain(`PENDING (Begin${SHOWN})`);
	expect(text).toContain(`WARN slurm: slurmctld${SHOWN}`);
	expect(text).not.toContain('\u001b');
	expect(text).not.toContain('\u0007');
});

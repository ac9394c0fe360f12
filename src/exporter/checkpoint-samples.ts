import {lastSaveDuration} from '../checkpoints/save-duration.js';
import type {CheckpointStatus} from '../core/checkpoint-types.js';
import {runDirJob} from '../core/run-dir-job.js';
import type {Snapshot} from '../core/types.js';
import type {Put} from './samples.js';

// The run dir's checkpoint facts (core/checkpoint-types.ts CheckpointIndex): the last save's age at the scrape (it
// grows while nothing is written, which is what an overdue alert is about), its write time, the saves the disk still
// holds, OVERDUE as the views judge it, and the checkpoints per status.

const STATUSES: readonly CheckpointStatus[] = ['complete', 'partial'];

export function putCheckpoints(put: Put, snapshot: Snapshot, now: number): void {
	const index = snapshot.checkpoints;
	// The watcher's stand-in while its first scan runs knows no checkpoint yet: that is not "none there".
	if (!index || index.scanning) return;
	const labels = {job: runDirJob(snapshot.ranks) ?? '', run_dir: index.runDir};
	const last = index.lastSave;
	// A save stamped ahead of our clock (another node, NFS) is 0 s old, as the views count it (last-save.ts).
	if (last) put('traintop_checkpoint_last_save_age_seconds', labels, Math.max(0, (now - last.time) / 1000));
	put('traintop_checkpoint_last_save_duration_seconds', labels, lastSaveDuration(index)?.seconds);
	put('traintop_checkpoint_saves_until_full', labels, index.disk.savesUntilFull);
	if (last) put('traintop_checkpoint_overdue', labels, last.overdue);
	for (const status of STATUSES) {
		const count = index.checkpoints.filter(c => c.status === status).length;
		put('traintop_checkpoints', {...labels, status}, count);
	}
}

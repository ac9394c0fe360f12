import {readFile} from 'node:fs/promises';
import path from 'node:path';
import {type DemoJob, startDemoJob} from '../../src/demo/job.js';

// A small, fast demo job for the tests that run several at once (two jobs of one user): 2 ranks, a step every
// 50 ms, no periodic saves (every checkpoint is one a test asked for), its own rendezvous port.

/** Starts it and resolves once both ranks are ready; the caller stops it (job.stop()). */
export async function startSmallJob(runDir: string, masterPort: number, workers = 0): Promise<DemoJob> {
	const job = await startDemoJob({
		runDir,
		ranks: 2,
		workers,
		stepSeconds: 0.05,
		saveEvery: 0,
		shutdownTimeoutS: 3,
		masterPort,
	});
	await job.ranksReady();
	return job;
}

/** The kinds of the checkpoints the demo job's metadata lists, oldest first; none when there is no metadata yet. */
export async function checkpointKinds(runDir: string): Promise<string[]> {
	try {
		const text = await readFile(path.join(runDir, 'checkpoints', 'checkpoint_metadata.json'), 'utf8');
		return (JSON.parse(text) as {checkpoints: {kind: string}[]}).checkpoints.map(c => c.kind);
	} catch {
		return [];
	}
}

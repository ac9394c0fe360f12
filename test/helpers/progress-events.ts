import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {TestContext} from 'vitest';
import {type HangJob, type HangOptions, startHangJob} from './hang-job.js';
import {type CliRun, startCli} from './run-cli.js';

// The progress objects a headless `--json` traintop writes (`{"event":"progress",…}`, one per change of a job's
// verdict or of the processes that stand out), and a headless traintop watching one job for them.

export interface ProgressProcessJson {
	readonly role: 'rank' | 'worker';
	readonly rank: number | null;
	readonly pid: number;
	readonly activity: string;
	readonly wchan: string | null;
	readonly since: string;
	readonly cpu_percent: number | null;
	readonly exit: {readonly code: number | null; readonly signal: string | null} | null;
	readonly of?: number;
}

export interface ProgressWaitingJson {
	readonly ranks: readonly (number | null)[];
	readonly pids: readonly number[];
	readonly activity: string;
	readonly wchan: string | null;
	readonly since: string;
}

export interface ProgressEvent {
	readonly event: 'progress';
	readonly time: string;
	readonly job: string;
	readonly verdict: 'progressing' | 'stalled' | 'hung' | 'unknown';
	readonly since: string;
	readonly last_progress_at: string | null;
	readonly window_s: number;
	readonly step: number | null;
	readonly step_s: number | null;
	readonly odd_ranks: readonly ProgressProcessJson[];
	readonly waiting: readonly ProgressWaitingJson[];
	readonly evidence: readonly {readonly code: string; readonly text: string}[];
	readonly text: string;
}

export function progressEvents(stdout: string): ProgressEvent[] {
	return stdout
		.split('\n')
		.filter(line => line.startsWith('{') && line.includes('"event":"progress"'))
		.map(line => JSON.parse(line) as ProgressEvent);
}

/** The first progress event that satisfies `wanted`, once the headless traintop has written it. */
export async function progressSeen(
	run: CliRun,
	wanted: (event: ProgressEvent) => boolean,
	timeoutMs: number,
): Promise<ProgressEvent> {
	const found = () => progressEvents(run.stdout()).find(wanted);
	await run.waitFor(() => found() !== undefined, timeoutMs);
	return found()!;
}

export const isStuck = (event: ProgressEvent): boolean => event.verdict === 'stalled' || event.verdict === 'hung';

/** A headless traintop on this job alone (its torchrun's pid), sampling its ranks every 0.5 s; killed after the test. */
export function watchJob(
	{onTestFinished}: TestContext,
	job: HangJob,
	runDir: string,
	hangAfter: number,
	more: readonly string[] = [],
): CliRun {
	const run = startCli([
		runDir,
		...['--headless', '--json', '--no-log', '--nvidia-smi', '/nonexistent', '--interval', '0.5'],
		...['--ranks-interval', '0.5', '--pid', String(job.launcherPid), '--hang-after', String(hangAfter), ...more],
	]);
	onTestFinished(() => void run.child.kill('SIGKILL'));
	return run;
}

/**
 * A hanging DDP job in a run dir of its own (options may name files in it); after the test its processes are stopped
 * and the dir removed.
 */
export function hangJobFor(
	{onTestFinished}: TestContext,
	options: HangOptions | ((runDir: string) => HangOptions),
): {job: HangJob; runDir: string} {
	const runDir = mkdtempSync(path.join(tmpdir(), 'traintop-hang-'));
	const job = startHangJob(runDir, typeof options === 'function' ? options(runDir) : options);
	onTestFinished(async () => {
		await job.stop();
		rmSync(runDir, {recursive: true, force: true});
	});
	return {job, runDir};
}

import type {SignalName} from '../ranks/signals.js';
import {runSlurm, type SlurmRun} from './slurm-exec.js';

// scancel for the signal routes, and the one way those routes run a SLURM client (slurm-exec.ts's runner: always
// asynchronous with a timeout, so a controller that does not answer gives a message, never a hung command).

/** A controller that does not answer in this long is reported as such (scontrol/scancel retry for longer). */
const SLURM_TIMEOUT_MS = 15_000;

/** Runs a SLURM client command with the caller's environment (SLURM_CONF says which controller). */
export function runSlurmCommand(command: string, args: readonly string[]): Promise<SlurmRun> {
	return runSlurm(command, args, {env: process.env, timeoutMs: SLURM_TIMEOUT_MS});
}

export type ScancelTarget = 'steps' | 'batch';

/** The scancel command line for a target, as run and as shown to the user. */
export function scancelArgs(
	jobId: string,
	signal: SignalName,
	target: ScancelTarget,
	steps: readonly string[] | null = null,
): string[] {
	// scancel(1), -s/--signal: without --batch or --full, "signals other than SIGKILL are not sent to the batch
	// step": the job's steps only. -b/--batch: "only the batch step, but not any other steps". --full (the batch
	// shell AND its children, srun included) is never used: it would reach the steps twice.
	const name = signal.replace(/^SIG/, '');
	// `steps`: only these steps (`7.0`), where the job has others that are not its ranks' (a traintop step).
	return target === 'batch' ? ['--batch', `--signal=${name}`, jobId] : [`--signal=${name}`, ...(steps ?? [jobId])];
}

/** `scancel --signal=SIG J`: sent, or why not (scancel's own words). */
export async function scancelSignal(
	jobId: string,
	signal: SignalName,
	target: ScancelTarget,
	steps: readonly string[] | null = null,
): Promise<{readonly sent: boolean; readonly reason: string | null}> {
	const args = scancelArgs(jobId, signal, target, steps);
	const result = await runSlurmCommand('scancel', args);
	if (result.failure) return {sent: false, reason: result.failure};
	if (result.code !== 0) {
		const said = result.stderr.trim().replace(/^scancel: error: /, '') || `exit ${result.code}`;
		return {sent: false, reason: `scancel ${args.join(' ')} failed: ${said}`};
	}
	return {sent: true, reason: null};
}

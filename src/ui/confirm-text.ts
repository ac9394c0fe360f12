import type {Job} from '../core/types.js';
import {printable} from '../format/printable.js';
import {wholeJobWarning} from '../format/whole-job.js';
import {rankPreview} from '../ranks/preview.js';
import {endsWholeJob} from '../ranks/whole-job.js';
import type {SignalName} from '../ranks/signals.js';
import type {SignalAction} from '../session/actions.js';
import {signalWord} from './send-status.js';
import type {Target} from './targets.js';

// The confirm box's words: it names the one job the signal goes to, how many of its ranks, whether its
// save will be watched, the route (always the local send: the TUI signals only ranks it sees here), then what
// each target does with the signal. Pure.

export interface ConfirmText {
	readonly title: string;
	readonly lines: readonly string[];
}

/** Whether the save can be watched: only RUN_DIR's own job's is. */
function runDirWords(job: Job, sessionRunDir: string | null): string {
	if (job.runDir !== null) return `run dir ${job.runDir}`;
	return sessionRunDir !== null
		? "RUN_DIR is not this job's: the save will not be watched"
		: 'no RUN_DIR given: the save will not be watched';
}

/**
 * The route, as `traintop signal` names it (`route: local`), and what it leaves out: ranks the job declares that
 * run elsewhere (another node of a SLURM or multi-node job) get nothing from a send here. For a SLURM job the box
 * says which command reaches every task (scancel through the controller: the job's steps, never its batch shell).
 */
function routeWords(job: Job, action: SignalAction): string[] {
	const local = "route: local — from this node to each rank's pid, checked again just before sending";
	const elsewhere = job.worldSize === null ? 0 : job.worldSize - job.ranks.length;
	if (elsewhere <= 0) return [local];
	const ranks = `${elsewhere} of its ${job.worldSize} ranks run elsewhere and get nothing`;
	const slurm = job.slurm ? printable(job.slurm.jobId) : undefined;
	if (slurm === undefined) return [local, `${ranks}: signal them on their nodes`];
	return [local, `${ranks}: \`traintop signal ${action} --slurm-job ${slurm}\` reaches every task (scancel)`];
}

/**
 * `Send SIGUSR1 (save) to job torchrun:4242?`, then `all 4 ranks · run dir /runs/a` and a line per target;
 * `job` is the target's job in the latest scan (null: it is gone, and nothing would be sent).
 */
export function confirmText(
	action: SignalAction,
	signal: SignalName,
	target: Target,
	job: Job | null,
	sessionRunDir: string | null,
): ConfirmText {
	// A job's id is made of its ranks' environment (SLURM_JOB_ID, MASTER_ADDR…): shown, never obeyed.
	const title = `Send ${signalWord(action, signal)} to job ${printable(target.job)}?`;
	if (job === null) return {title, lines: [`job ${printable(target.job)} is no longer running: nothing will be sent`]};
	const chosen = new Set(target.pids);
	const ranks = job.ranks.filter(r => chosen.has(r.pid));
	const plural = ranks.length === 1 ? '' : 's';
	const which = target.marked
		? `${ranks.length} marked rank${plural} of ${job.ranks.length}`
		: `all ${ranks.length} rank${plural}`;
	// A marked rank of a torchrun job that exits takes every rank with it: said before the route and the targets.
	const wholeJob = endsWholeJob(job, ranks, signal, {emergency: action === 'emergency', force: false});
	// Refused ranks first, counted above the route: in a box of 64 ranks that scrolls, the one that would die of
	// the signal is on the first screen, not row 60.
	const previews = ranks.map(r => rankPreview(r, signal, false, 'the TUI never forces; traintop signal --force does'));
	const refused = previews.filter(p => p.refused);
	const refusedWords =
		refused.length === 0 ? [] : [`${refused.length} of ${ranks.length} rank${plural} will be refused (listed first)`];
	return {
		title,
		lines: [
			`${which} · ${runDirWords(job, sessionRunDir)}`,
			...(wholeJob ? [wholeJobWarning(wholeJob)] : []),
			...refusedWords,
			...routeWords(job, action),
			...refused.map(p => p.text),
			...previews.filter(p => !p.refused).map(p => p.text),
		],
	};
}

import type {Job} from '../core/types.js';
import {previewLine} from '../ranks/preview.js';
import type {SignalName} from '../ranks/signals.js';
import type {SignalAction} from '../session/actions.js';
import {signalWord} from './send-status.js';
import type {Target} from './targets.js';

// The confirm box's words: it names the one job the signal goes to, how many of its ranks, whether its
// save will be watched, then what each target does with the signal. Pure.

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
	const title = `Send ${signalWord(action, signal)} to job ${target.job}?`;
	if (job === null) return {title, lines: [`job ${target.job} is no longer running: nothing will be sent`]};
	const chosen = new Set(target.pids);
	const ranks = job.ranks.filter(r => chosen.has(r.pid));
	const plural = ranks.length === 1 ? '' : 's';
	const which = target.marked
		? `${ranks.length} marked rank${plural} of ${job.ranks.length}`
		: `all ${ranks.length} rank${plural}`;
	return {
		title,
		lines: [
			`${which} · ${runDirWords(job, sessionRunDir)}`,
			...ranks.map(r => previewLine(r, signal, false, 'the TUI never forces; traintop signal --force does')),
		],
	};
}

import type {Job, RankProcess} from '../core/types.js';
import {schedulerOf} from '../scheduler/kinds.js';
import type {SignalName} from './signals.js';

// Whether a signal to some of a job's ranks ends all of them (ARCHITECTURE, "A partial signal that ends the whole job
// says so"): the fact, for the confirm box and `traintop signal --rank` to word.
// - torchrun / the elastic agent (TORCHELASTIC_RUN_ID): when one worker fails, the agent stops every worker of the
//   group (and, within --max-restarts, starts them all again): torch/distributed/elastic/agent/server/api.py,
//   SimpleElasticAgent._invoke_run.
// - DeepSpeed's launcher (deepspeed/launcher/launch.py): a rank that exits with an error makes it kill every rank.
// - a scheduler's step launcher may end the step when a task exits with an error, depending on a setting traintop
//   cannot read (its words say which: scheduler/kind.ts), so the fact is conditional there.

/** elastic, deepspeed, or a scheduler's step launcher by its program's name (a contract of `signal --json`). */
export type WholeJobLauncher = 'elastic' | 'deepspeed' | (string & {});

export interface WholeJobEnd {
	readonly launcher: WholeJobLauncher;
	/** The launcher's name as the job id gives it (`torchrun`), for the words. */
	readonly name: string;
	/** False where it depends on a setting traintop cannot read (a scheduler launcher's, such as a kill-on-bad-exit). */
	readonly certain: boolean;
	/** How many of the job's ranks would be signalled, and how many it has (the world, where declared). */
	readonly chosen: number;
	readonly of: number;
}

/** Signals that ask a process to end, whatever it does about them: a rank that handles SIGTERM shuts down. */
const ENDING = new Set<string>(['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGKILL']);

/**
 * Does the signal make this rank exit: it gets the signal (it handles it, or has no handler and the send is
 * forced: the TUI never forces, so a rank without a handler is refused, not ended) and the signal ends it (an
 * emergency: the rank saves and exits; one that asks a process to end; a default action that terminates).
 */
function exits(rank: RankProcess, signal: SignalName, emergency: boolean, force: boolean): boolean {
	const state = rank.signals[signal];
	if (state?.disposition === 'ignored') return false;
	if (state?.disposition === 'default') return state.terminatesByDefault && force;
	return emergency || ENDING.has(signal);
}

/** The launcher that ends every rank when one exits, or null when none does (or none is known). */
function wholeJobLauncher(job: Job): Pick<WholeJobEnd, 'launcher' | 'name' | 'certain'> | null {
	const name = job.id.slice(0, job.id.indexOf(':'));
	if (job.identity === 'elastic') return {launcher: 'elastic', name, certain: true};
	if (/\bdeepspeed\b/.test(job.launcher?.cmd ?? '')) return {launcher: 'deepspeed', name: 'deepspeed', certain: true};
	const scheduler = job.task && schedulerOf(job.task);
	if (scheduler) return {launcher: scheduler.launcher, name: scheduler.launcher, certain: false};
	return null;
}

/**
 * The whole-job consequence of a signal to `ranks` (some of the job's) that makes them exit; null when all of
 * the job's ranks are chosen, the signal does not end them, or the launcher lets the others run on.
 */
export function endsWholeJob(
	job: Job,
	ranks: readonly RankProcess[],
	signal: SignalName,
	how: {readonly emergency: boolean; readonly force: boolean},
): WholeJobEnd | null {
	const of = Math.max(job.ranks.length, job.worldSize ?? 0);
	const chosen = ranks.length;
	if (chosen === 0 || chosen >= of || !ranks.some(rank => exits(rank, signal, how.emergency, how.force))) return null;
	const launcher = wholeJobLauncher(job);
	return launcher && {...launcher, chosen, of};
}

import type {SaveExpectation, SaveOutcome} from '../checkpoints/save-attribution.js';
import {UsageError} from '../core/errors.js';
import type {Job, RankSet} from '../core/types.js';
import type {ExitReport} from '../fleet/node-exit-watch.js';
import {previewLine} from '../ranks/preview.js';
import {endsWholeJob, type WholeJobEnd} from '../ranks/whole-job.js';
import {type Outcome, selectTargets, sendSignal} from '../ranks/send.js';
import type {SignalName} from '../ranks/signals.js';
import type {ProcReader} from '../system/procfs.js';

// What `traintop signal` will do, before it does it: the route (local, or a scheduler's: scheduler/signal-route.ts), the lines shown before
// asking, and the send itself. runSignalCommand shows, asks, sends, and confirms by the checkpoint.

export interface TargetResult {
	readonly rank: number | null;
	/** null where the scheduler delivers (scancel): traintop never learns the pids. */
	readonly pid: number | null;
	readonly target: string;
	readonly outcome: Outcome;
	readonly reason: string | null;
}

export interface SignalPlan {
	/** 'local' (the guarded send here), 'agents', or a scheduler's own route ('srun', 'scancel'). */
	readonly route: string;
	/** `SIGUSR1 (save) to 2 of 2 ranks of job torchrun:4242 (--job 4242):` and the route's reason. */
	readonly heading: string;
	readonly preview: readonly string[];
	/** Said with the preview: the batch shell's trap that is not signalled, a controller that did not answer… */
	readonly notes: readonly string[];
	/** A signal to some of the ranks that ends every rank of the job (its launcher's doing); absent: none. */
	readonly wholeJob?: WholeJobEnd | null;
	readonly question: string;
	/** What the send reaches, for "add --yes to send SIGUSR1 to …": `4 rank(s) of job torchrun:4242`. */
	readonly reach: string;
	readonly job: Record<string, unknown>;
	/** A visible rank's working directory: where --wait watches when no RUN_DIR is given. */
	readonly watchFrom: number | null;
	send(): Promise<TargetResult[]>;
	/** Where the plan watches for the save itself (through the agents: the node's own snapshots); else a local watcher. */
	readonly awaitSave?: (sinceMs: number, expect: SaveExpectation) => Promise<SaveOutcome>;
	/** The run dir `awaitSave` watches, for the words. */
	readonly runDir?: string | null;
	/**
	 * Through the agents: each node's ranks followed from `sinceMs` (before the send) until they exit, its node is
	 * lost, or the timeout; `settle` waits on the ranks the send reached. An emergency's --wait watches this too.
	 */
	readonly watchExits?: (sinceMs: number) => {
		settle(): Promise<ExitReport>;
		stop(): void;
	};
}

/** What the plan will do, as `signal` and `drill` say it before they ask: the heading, each target, the route, notes. */
export function planLines(plan: SignalPlan, wholeJobText: (end: WholeJobEnd) => string): string[] {
	return [
		plan.heading,
		...plan.preview.map(line => `  ${line}`),
		`route: ${plan.route}`,
		...plan.notes.map(note => `note: ${note}`),
		...(plan.wholeJob ? [`warning: ${wholeJobText(plan.wholeJob)}`] : []),
	];
}

export interface PlanCommon {
	readonly signal: SignalName;
	/** `SIGUSR1 (save)`. */
	readonly label: string;
	readonly ranks: readonly number[] | undefined;
	readonly force: boolean;
	/** The emergency action: the ranks save and exit. */
	readonly emergency: boolean;
	readonly proc: ProcReader;
}

/** The guarded local send (issue 9) to the ranks of one or more jobs (a scheduler's job's steps seen here). */
export function localPlan(jobs: readonly Job[], why: string, c: PlanCommon, route = 'local'): SignalPlan {
	const picked = jobs.map(job => ({job, ...selectTargets(job, c.ranks)}));
	const targets = picked.flatMap(p => p.targets);
	const all = jobs.flatMap(job => job.ranks);
	const unknown = (c.ranks ?? []).filter(n => !all.some(r => r.rank === n));
	const ids = jobs.map(job => job.id).join(', ');
	if (unknown.length > 0) {
		const known =
			all
				.map(r => r.rank)
				.filter(n => n !== null)
				.join(', ') || 'none';
		throw new UsageError(`--rank ${unknown.join(',')}: job ${ids} has no such rank (found: ${known})`);
	}
	const plural = all.length === 1 ? '' : 's';
	return {
		route,
		heading: `${c.label} to ${targets.length} of ${all.length} rank${plural} of job ${ids} (${why}):`,
		preview: targets.map(target => previewLine(target, c.signal, c.force)),
		notes: [],
		wholeJob:
			picked
				.map(p => endsWholeJob(p.job, p.targets, c.signal, {emergency: c.emergency, force: c.force}))
				.find(end => end !== null) ?? null,
		question: `Send ${c.signal} to job ${ids}? [y/N] `,
		reach: `${targets.length} rank(s) of job ${ids}`,
		job: jobs.length === 1 ? jobJson(jobs[0]!) : {id: ids, steps: jobs.map(jobJson)},
		watchFrom: all[0]?.pid ?? null,
		send: async () =>
			picked.flatMap(({job}) =>
				sendSignal({job, ranks: c.ranks, signal: c.signal, force: c.force, proc: c.proc}).results.map(r => ({
					...r,
					target: r.rank === null ? `pid ${r.pid}` : `rank ${r.rank}`,
				})),
			),
	};
}

function jobJson(job: Job) {
	return {
		id: job.id,
		identity: job.identity,
		launcher: job.launcher && {pid: job.launcher.pid, cmd: job.launcher.cmd},
		run_dir: job.runDir,
	};
}

/** What a scheduler's route is given (scheduler/signal-route.ts): the job it picked, the ranks seen here, --batch. */
export interface SchedulerPlanInput extends PlanCommon {
	readonly jobId: string;
	readonly set: RankSet;
	readonly batch: boolean;
	/** How the job was named, for the heading: `--job 3`. */
	readonly pickedBy: string;
}

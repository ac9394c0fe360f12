import {hostname} from 'node:os';
import type {SaveExpectation, SaveOutcome} from '../checkpoints/save-attribution.js';
import {UsageError} from '../core/errors.js';
import type {Job, RankSet} from '../core/types.js';
import type {ExitReport} from '../fleet/node-exit-watch.js';
import {jobMatches} from '../ranks/choose-job.js';
import {signalState} from '../ranks/dispositions.js';
import {previewLine} from '../ranks/preview.js';
import {endsWholeJob, type WholeJobEnd} from '../ranks/whole-job.js';
import {type ForwarderTarget, type Outcome, selectTargets, sendSignal, sendToForwarder} from '../ranks/send.js';
import {type SignalName, signalNumber} from '../ranks/signals.js';
import {gatePreview, gateRefusal, leftOutNotes} from '../format/signal-gate.js';
import {gateBlocks, stepViews} from '../slurm/step-gate.js';
import {scancelArgs, scancelSignal} from '../slurm/scancel.js';
import {type JobFacts, type LocalPids, readBatchScript, readJobFacts, readLocalPids} from '../slurm/signal-facts.js';
import {chooseRoute, type RouteName} from '../slurm/signal-route.js';
import {localForwarder} from '../slurm/signal-targets.js';
import {findTrap, type Trap} from '../slurm/signal-trap.js';
import type {ProcReader} from '../system/procfs.js';

// What `traintop signal` will do, before it does it: the route (local, srun or scancel), the lines shown before
// asking, and the send itself. runSignalCommand shows, asks, sends, and confirms by the checkpoint.

export interface TargetResult {
	readonly rank: number | null;
	/** null where SLURM delivers (scancel): traintop never learns the pids. */
	readonly pid: number | null;
	readonly target: string;
	readonly outcome: Outcome;
	readonly reason: string | null;
}

export interface SignalPlan {
	readonly route: RouteName;
	/** `SIGUSR1 (save) to 2 of 2 ranks of job slurm:3.0 (--job 3):` and the route's reason. */
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

interface PlanCommon {
	readonly signal: SignalName;
	/** `SIGUSR1 (save)`. */
	readonly label: string;
	readonly ranks: readonly number[] | undefined;
	readonly force: boolean;
	/** The emergency action: the ranks save and exit. */
	readonly emergency: boolean;
	readonly proc: ProcReader;
}

/** The guarded local send (issue 9) to the ranks of one or more jobs (a SLURM job's steps seen here). */
export function localPlan(jobs: readonly Job[], why: string, c: PlanCommon, route: RouteName = 'local'): SignalPlan {
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

/** A SLURM job id as scancel and scontrol take it: `998`, an array task `998_3`. */
const SLURM_JOB_ID = /^\d+(_\d+)?$/;

/**
 * The SLURM job a signal is for: --slurm-job, or --job when it is a SLURM job id that no local job other than
 * that SLURM job's own steps answers to (a launcher pid `4242` stays a launcher pid).
 */
export function slurmJobPick(set: RankSet, job: string | null, slurmJob: string | null): string | null {
	if (slurmJob !== null) {
		if (!SLURM_JOB_ID.test(slurmJob.trim())) throw new UsageError(`--slurm-job ${slurmJob}: not a SLURM job id`);
		return slurmJob.trim();
	}
	const wanted = job?.trim() ?? '';
	if (!SLURM_JOB_ID.test(wanted)) return null;
	const others = set.jobs.filter(j => j.slurm?.jobId !== wanted && jobMatches(j, wanted));
	return others.length === 0 ? wanted : null;
}

export interface SlurmPlanInput extends PlanCommon {
	readonly jobId: string;
	readonly set: RankSet;
	readonly batch: boolean;
	/** How the job was named, for the heading: `--slurm-job 3`. */
	readonly pickedBy: string;
}

/**
 * traintop's own step when it runs inside the job (`srun --jobid J --overlap traintop …`): not one to signal, and
 * its task is not a rank missing from view.
 */
function withoutOwnStep(facts: JobFacts, env: NodeJS.ProcessEnv = process.env): JobFacts {
	const own =
		(env.SLURM_JOB_ID ?? env.SLURM_JOBID) === facts.jobId ? (env.SLURM_STEP_ID ?? env.SLURM_STEPID) : undefined;
	return own === undefined ? facts : {...facts, steps: facts.steps.filter(step => step.id !== `${facts.jobId}.${own}`)};
}

/**
 * The job's ranks seen here: those carrying SLURM_JOB_ID=J, and — where this node's slurmd lists the job's tasks —
 * only those it lists (another SLURM on the same host may have a job J too; its ranks are not this job's).
 */
function jobsOf(set: RankSet, jobId: string, here: LocalPids | null): Job[] {
	const jobs = set.jobs.filter(job => job.slurm?.jobId === jobId);
	if (here === null) return jobs;
	return jobs
		.map(job => ({...job, ranks: job.ranks.filter(rank => here.tasks.has(rank.pid))}))
		.filter(job => job.ranks.length > 0);
}

function trapNote(trap: Trap | null | undefined, signal: SignalName): string[] {
	if (!trap) return [];
	return [
		`the batch shell traps ${signal} (\`${trap.command}\`: ${trap.effect}); it is not signalled (only --batch does that)`,
	];
}

/** A SLURM job's signal: the route, or a refusal (an Error carrying why, exit 3). */
export async function slurmPlan(
	input: SlurmPlanInput,
): Promise<SignalPlan | {readonly refused: string; readonly unknownJob: boolean}> {
	const {jobId, signal, proc} = input;
	const read = await readJobFacts(jobId);
	const facts: JobFacts | {problem: string} = 'facts' in read ? withoutOwnStep(read.facts) : read;
	const [script, here] = await Promise.all([
		'facts' in read ? readBatchScript(jobId) : null,
		'facts' in read ? readLocalPids(jobId) : null,
	]);
	const localJobs = jobsOf(input.set, jobId, here);
	const trap = script === null ? undefined : findTrap(script, signal, signalNumber(signal));
	// Each running step as seen here; a step none of whose tasks here is a rank (traintop's own --overlap step) is
	// left out of the targets, so that it neither hides the ranks' local route nor receives the signal.
	const claimed = input.set.jobs.filter(job => job.slurm?.jobId === jobId).flatMap(job => job.ranks.map(r => r.pid));
	const views = 'steps' in facts ? stepViews(facts, here, localJobs, signal, proc, claimed) : [];
	const leftOut = views.filter(view => view.notRanks !== null).map(view => view.step.id);
	const targetFacts =
		'steps' in facts ? {...facts, steps: facts.steps.filter(step => !leftOut.includes(step.id))} : facts;
	const host = hostname();
	const forwarders = new Map<string, ForwarderTarget>();
	for (const step of 'steps' in targetFacts ? targetFacts.steps : []) {
		const found = localForwarder(step, jobId, host, proc);
		if (found) forwarders.set(step.id, found);
	}
	const shellStatus = input.batch && here?.batchShell ? proc.status(here.batchShell) : null;
	const route = chooseRoute({
		jobId,
		signal,
		batch: input.batch,
		localJobs,
		facts: targetFacts,
		forwarders,
		batchShell: shellStatus ? signalState(shellStatus, signal) : null,
		trap,
	});
	// No answer about J and nothing of it here: J may not be a SLURM job at all (`--job 4242` of a gone launcher).
	const unknownJob = 'problem' in read && localJobs.length === 0;
	if (route.kind === 'refused') return {refused: route.why, unknownJob};
	const slurmJob = {id: `slurm:${jobId}`, identity: 'slurm', slurm_job: jobId, run_dir: localJobs[0]?.runDir ?? null};
	const leftOutWords = leftOutNotes(views);
	if (route.kind === 'local') {
		const plan = localPlan(localJobs, `${input.pickedBy}; ${route.why}`, input);
		return {...plan, notes: [...leftOutWords, ...trapNote(trap, signal)]};
	}
	// srun and scancel reach every task of the steps: each is judged on its disposition where it can be read here,
	// and a step read nowhere blocks a signal that terminates or stops (slurm/step-gate.ts).
	const reached =
		route.kind === 'scancel' && route.target === 'batch' ? [] : views.filter(view => !leftOut.includes(view.step.id));
	const blocks = gateBlocks(reached, signal);
	if (blocks.length > 0 && !input.force) return {refused: gateRefusal(blocks, signal), unknownJob};
	const gatePreviewLines = gatePreview(reached, blocks, signal);
	// Read again right before sending, as ranks/send.ts does per rank: a handler dropped while the user read the
	// preview refuses the send (the same tasks, their dispositions now).
	const stillGated = (): string | null => {
		if (input.force || reached.length === 0 || !('steps' in facts)) return null;
		const now = stepViews(facts, here, localJobs, signal, proc, claimed).filter(v => !leftOut.includes(v.step.id));
		const again = gateBlocks(now, signal);
		return again.length > 0 ? gateRefusal(again, signal) : null;
	};
	const watchFrom = localJobs[0]?.ranks[0]?.pid ?? null;
	const notes = input.batch ? [] : [...leftOutWords, ...trapNote(trap, signal)];
	if (route.kind === 'srun') {
		return {
			route: 'srun',
			heading: `${input.label} to job ${jobId} through srun (${input.pickedBy}; ${route.why}):`,
			preview: [
				...route.forwarders.map(f => `srun of ${f.label}  pid ${f.pid}  forwards ${signal} to every task of the step`),
				...gatePreviewLines,
			],
			notes,
			question: `Send ${signal} to the srun of job ${jobId}? [y/N] `,
			reach: `the srun of job ${jobId}`,
			job: slurmJob,
			watchFrom,
			send: async () => {
				const refused = stillGated();
				return route.forwarders.map(f => ({
					...(refused
						? {rank: null, pid: f.pid, outcome: 'refused' as const, reason: refused}
						: sendToForwarder(f, {signal, proc})),
					target: `srun of ${f.label}`,
				}));
			},
		};
	}
	const steps = leftOut.length > 0 ? reached.map(view => view.step.id) : null;
	const command = `scancel ${scancelArgs(jobId, signal, route.target, steps).join(' ')}`;
	const what =
		route.target === 'batch'
			? `the batch shell of job ${jobId}: ${trap ? `its trap \`${trap.command}\` ${trap.effect}` : `it handles ${signal} (its trap is not readable)`}`
			: `${steps ? `steps ${steps.join(', ')}` : 'every step'} of job ${jobId}, on every node; not the batch shell`;
	return {
		route: 'scancel',
		heading: `${input.label} to job ${jobId} through ${command} (${input.pickedBy}; ${route.why}):`,
		preview: [what, ...gatePreviewLines],
		notes,
		question: `Run ${command}? [y/N] `,
		reach: `job ${jobId} with ${command}`,
		job: {...slurmJob, target: route.target},
		watchFrom,
		send: async () => {
			const target = route.target === 'batch' ? `batch shell of job ${jobId}` : `steps of job ${jobId}`;
			const refused = stillGated();
			if (refused) return [{rank: null, pid: null, target, outcome: 'refused', reason: refused}];
			const done = await scancelSignal(jobId, signal, route.target, steps);
			return [{rank: null, pid: null, target, outcome: done.sent ? 'sent' : 'denied', reason: done.reason ?? command}];
		},
	};
}

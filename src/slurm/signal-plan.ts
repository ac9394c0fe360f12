import {hostname} from 'node:os';
import {localPlan, type SchedulerPlanInput, type SignalPlan} from '../commands/signal-plan.js';
import {UsageError} from '../core/errors.js';
import type {Job, RankSet} from '../core/types.js';
import {gatePreview, gateRefusal, leftOutNotes} from './views/gate-words.js';
import {jobMatches} from '../ranks/choose-job.js';
import {signalState} from '../ranks/dispositions.js';
import {type ForwarderTarget, sendToForwarder} from '../ranks/send.js';
import {type SignalName, signalNumber} from '../ranks/signals.js';
import type {RouteRefusal} from '../scheduler/signal-route.js';
import {gateBlocks, stepViews} from './step-gate.js';
import {scancelArgs, scancelSignal} from './scancel.js';
import {type JobFacts, type LocalPids, readBatchScript, readJobFacts, readLocalPids} from './signal-facts.js';
import {chooseRoute} from './signal-route.js';
import {localForwarder} from './signal-targets.js';
import {findTrap, type Trap} from './signal-trap.js';
import {slurmJobOf} from './tasks.js';

// SLURM's signal route for `traintop signal` (scheduler/signal-route.ts): which SLURM job a signal is for, and how it
// reaches that job's tasks: the guarded send here, the step's srun, or scancel; each gated on the tasks' dispositions.

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
	const others = set.jobs.filter(j => slurmJobOf(j) !== wanted && jobMatches(j, wanted));
	return others.length === 0 ? wanted : null;
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
	const jobs = set.jobs.filter(job => slurmJobOf(job) === jobId);
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
export async function slurmPlan(input: SchedulerPlanInput): Promise<SignalPlan | RouteRefusal> {
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
	const claimed = input.set.jobs.filter(job => slurmJobOf(job) === jobId).flatMap(job => job.ranks.map(r => r.pid));
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

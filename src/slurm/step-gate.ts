import type {Job, SignalState} from '../core/types.js';
import {signalState, wouldStop, wouldTerminate} from '../ranks/dispositions.js';
import {type SignalName, stopsByDefault, terminatesByDefault} from '../ranks/signals.js';
import type {ProcReader} from '../system/procfs.js';
import type {JobFacts, LocalPids, StepFacts} from './signal-facts.js';

// The srun and scancel routes gated the way ranks/send.ts gates a local send (ARCHITECTURE, "Every route is gated
// the same way"): each task of the steps they reach is judged on its disposition wherever this node can read it
// (its slurmstepd lists it here, and its environment names the job); a step none of whose tasks can be read here
// (it runs on other nodes, or traintop runs on a login node) blocks a signal that terminates or stops by default,
// because any of its tasks without a handler would die or hang. A step seen here none of whose tasks is or wraps a
// rank of the job (traintop's own `srun --overlap` step, a helper) is not a target at all: the route does not widen
// the send beyond the job's ranks. A wrapper task (`bash -c 'python …'`) is judged on its own disposition: srun and
// scancel signal it too.

/** A task of a reached step whose disposition was read here. */
export interface ReadTask {
	/** `7.0` */
	readonly step: string;
	/** Its task number in the step (GLOBALID), when listed. */
	readonly task: number | null;
	readonly pid: number;
	/** Its rank number when traintop sees it as a rank of the job; null: a task it does not count as one. */
	readonly rank: number | null;
	readonly state: SignalState;
	readonly stopped: boolean;
}

export interface StepView {
	readonly step: StepFacts;
	/** The step's tasks on this node, read from /proc. */
	readonly read: readonly ReadTask[];
	/** Seen here and none of its tasks is a rank of the job: never a target. Its tasks' commands, for the note. */
	readonly notRanks: readonly string[] | null;
}

/** What stops the send without --force, for one task read here or one step read nowhere. */
export type GateBlock =
	| {readonly kind: 'task'; readonly task: ReadTask; readonly effect: 'terminates' | 'stops' | 'ignored' | 'pending'}
	| {readonly kind: 'unread'; readonly step: StepFacts; readonly effect: 'terminates' | 'stops'};

/** The job's running task steps as this node sees them; `here`: this node's slurmstepd's list (null: none). */
export function stepViews(
	facts: JobFacts,
	here: LocalPids | null,
	localJobs: readonly Job[],
	signal: SignalName,
	proc: ProcReader,
	/** Every rank seen here that says it is of the job, task or not (a wrapper's child: `srun bash -c 'python …'`). */
	jobRanks: readonly number[] = [],
): StepView[] {
	const rankOf = new Map(localJobs.flatMap(job => job.ranks.map(rank => [rank.pid, rank.rank] as const)));
	const carriers = rankCarriers([...rankOf.keys(), ...jobRanks], proc);
	return facts.steps
		.filter(step => step.state === 'RUNNING')
		.map(step => {
			const listed = here?.byStep.get(step.id.slice(step.id.indexOf('.') + 1)) ?? [];
			const read: ReadTask[] = [];
			const commands: string[] = [];
			for (const {pid, task} of listed) {
				const env = proc.environ(pid);
				const status = proc.status(pid);
				const stat = proc.stat(pid);
				// A pid listed by slurmd but another process in this /proc (a PID namespace) is not read as the task.
				if (!status || !stat || (env?.get('SLURM_JOB_ID') ?? env?.get('SLURM_JOBID')) !== facts.jobId) continue;
				const stopped = stat.state === 'T' || stat.state === 't';
				read.push({
					step: step.id,
					task,
					pid,
					rank: rankOf.get(pid) ?? null,
					state: signalState(status, signal),
					stopped,
				});
				// process.title pads argv with spaces (traintop's own does): the words only.
				const command = (proc.cmdline(pid) ?? [stat.comm]).join(' ').replace(/\s+/g, ' ').trim();
				commands.push(`pid ${pid} ${command.slice(0, 60)}`);
			}
			const notRanks = read.length > 0 && read.every(task => !carriers.has(task.pid)) ? commands : null;
			return {step, read, notRanks};
		});
}

/** How far up from a rank a task that wraps it is looked for (a shell, a `python -m` runner, a container shim). */
const WRAPPER_DEPTH = 4;

/** The ranks and the processes a few levels above them: a step whose task is one of these carries a rank. */
function rankCarriers(ranks: readonly number[], proc: ProcReader): Set<number> {
	const carriers = new Set<number>();
	for (const rank of ranks) {
		let pid: number | undefined = rank;
		for (let depth = 0; pid !== undefined && pid > 1 && depth <= WRAPPER_DEPTH; depth++) {
			carriers.add(pid);
			pid = proc.stat(pid)?.ppid;
		}
	}
	return carriers;
}

/** The effect that keeps a signal from a read task without --force, or null when it acts as asked. */
function taskEffect(task: ReadTask, signal: SignalName): Extract<GateBlock, {kind: 'task'}>['effect'] | null {
	if (wouldTerminate(task.state)) return 'terminates';
	if (wouldStop(signal, task.state)) return 'stops';
	// SIGCONT continues a stopped process whatever its disposition; any other ignored signal does nothing.
	if (task.state.disposition === 'ignored' && signal !== 'SIGCONT') return 'ignored';
	// A stopped process keeps a handled signal pending until it is continued (SIGKILL and SIGCONT act at once).
	if (task.stopped && signal !== 'SIGCONT' && signal !== 'SIGKILL') return 'pending';
	return null;
}

/** Why the route must not send without --force: every read task that would not act as asked, every unread step. */
export function gateBlocks(steps: readonly StepView[], signal: SignalName): GateBlock[] {
	const blocks: GateBlock[] = [];
	const dangerous = stopsByDefault(signal) ? 'stops' : terminatesByDefault(signal) ? 'terminates' : null;
	for (const view of steps) {
		if (view.read.length === 0) {
			if (dangerous) blocks.push({kind: 'unread', step: view.step, effect: dangerous});
			continue;
		}
		for (const task of view.read) {
			const effect = taskEffect(task, signal);
			if (effect) blocks.push({kind: 'task', task, effect});
		}
	}
	return blocks;
}

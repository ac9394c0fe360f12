import type {Job, SignalState} from '../core/types.js';
import type {ForwarderTarget} from '../ranks/send.js';
import type {SignalName} from '../ranks/signals.js';
import type {JobFacts} from './signal-facts.js';
import type {Trap} from './signal-trap.js';

// Which way a signal for a SLURM job goes, decided from what this node can see and what the controller says:
// - local: the guarded send to the ranks (issue 9), when every task of the job's steps is a rank visible here;
// - srun: the steps' srun on this node, which forwards to every task on every node (srun(1), SIGNALS), when some
//   tasks are not visible here;
// - scancel: `scancel --signal=SIG J`, the job's steps and never the batch shell (scancel(1), --batch/--full);
// - batch (only asked for with --batch): `scancel --batch`, and only where the batch shell handles the signal.

export type Route =
	| {readonly kind: 'local'; readonly jobs: readonly Job[]; readonly why: string}
	| {readonly kind: 'srun'; readonly forwarders: readonly ForwarderTarget[]; readonly why: string}
	| {readonly kind: 'scancel'; readonly target: 'steps' | 'batch'; readonly why: string}
	| {readonly kind: 'refused'; readonly why: string};

export interface RouteInput {
	readonly jobId: string;
	readonly signal: SignalName;
	/** --batch: the batch shell is the target. */
	readonly batch: boolean;
	/** The jobs of this SLURM job whose ranks are visible here (one per step). */
	readonly localJobs: readonly Job[];
	/** The controller's view, or why it could not be read. */
	readonly facts: JobFacts | {readonly problem: string};
	/** The srun of each running step, where it runs here (by step id). */
	readonly forwarders: ReadonlyMap<string, ForwarderTarget>;
	/** The batch shell's disposition of the signal when it runs here, else null. */
	readonly batchShell: SignalState | null;
	/** The batch script's trap of the signal; null: none; undefined: the script could not be read. */
	readonly trap: Trap | null | undefined;
}

function isProblem(facts: RouteInput['facts']): facts is {readonly problem: string} {
	return 'problem' in facts;
}

const bare = (signal: SignalName) => signal.replace(/^SIG/, '');

/** --batch: allowed only where the batch shell is known to handle the signal (its disposition here, else its trap). */
function batchRoute(input: RouteInput): Route {
	const {signal} = input;
	const dies = `the batch shell has no handler for ${signal}: it would die and take the job down`;
	if (isProblem(input.facts))
		return {kind: 'refused', why: `--batch: cannot reach the batch shell: ${input.facts.problem}`};
	if (input.batchShell) {
		if (input.batchShell.disposition === 'handled')
			return {kind: 'scancel', target: 'batch', why: `the batch shell handles ${signal} (its /proc disposition here)`};
		if (input.batchShell.disposition === 'ignored')
			return {kind: 'refused', why: `the batch shell ignores ${signal}: sending it would do nothing`};
		return {kind: 'refused', why: dies};
	}
	// Not on this node: the script's trap is the only evidence of a handler.
	if (input.trap) return {kind: 'scancel', target: 'batch', why: `the batch script traps ${bare(signal)}`};
	if (input.trap === null) return {kind: 'refused', why: `${dies} (its batch script sets no trap for ${bare(signal)})`};
	return {
		kind: 'refused',
		why: `cannot tell whether the batch shell handles ${signal}: it is not on this node and the batch script is not readable (scontrol write batch_script)`,
	};
}

export function chooseRoute(input: RouteInput): Route {
	if (input.batch) return batchRoute(input);
	const visible = input.localJobs.reduce((sum, job) => sum + job.ranks.length, 0);
	if (isProblem(input.facts)) {
		// The ranks here can still be reached safely; the controller is only needed to know about the others.
		if (visible > 0)
			return {
				kind: 'local',
				jobs: input.localJobs,
				why: `the ${visible} rank(s) visible here (the controller did not answer: ${input.facts.problem})`,
			};
		return {kind: 'refused', why: input.facts.problem};
	}
	const running = input.facts.steps.filter(step => step.state === 'RUNNING');
	if (running.length === 0)
		return {kind: 'refused', why: `job ${input.jobId} (${input.facts.state}) has no running step to signal`};
	const tasks = running.reduce((sum, step) => sum + step.tasks, 0);
	if (visible > 0 && visible >= tasks)
		return {
			kind: 'local',
			jobs: input.localJobs,
			why: `all ${tasks} task(s) of job ${input.jobId} are ranks on this node`,
		};
	const forwarders = running.map(step => input.forwarders.get(step.id));
	if (forwarders.every(f => f !== undefined)) {
		const steps = running.map(step => `${step.id} (${step.tasks} tasks)`).join(', ');
		return {
			kind: 'srun',
			forwarders: forwarders as ForwarderTarget[],
			why: `${visible} of ${tasks} tasks are visible here; the srun of step ${steps} runs here and forwards to every task`,
		};
	}
	return {
		kind: 'scancel',
		target: 'steps',
		why: `${visible === 0 ? 'no task' : `${visible} of ${tasks} tasks`} of job ${input.jobId} visible here; scancel reaches its steps on every node, not the batch shell`,
	};
}

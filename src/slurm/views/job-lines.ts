import type {DeadlineRisk} from '../../core/deadline-risk.js';
import type {JobLine} from '../../scheduler/view.js';
import type {SlurmJob, SlurmView} from '../types.js';
import type {ExitStatus} from '../../core/job-types.js';
import {signalName} from '../slurm-values.js';
import {formatDuration} from '../../format/duration.js';
import {jobExitWords} from '../../format/events.js';
import {printable} from '../../format/printable.js';
import {timeAtRiskText} from '../../format/time-at-risk.js';
import {localTime} from '../../format/time.js';

// The SLURM job in words, for the TUI's job pane and the headless lines alike: the job as SLURM sees it (state,
// time left, restarts, the warning signal, its steps) and the time left weighed against the save cadence.

/** The job reader's view before its first answer (slurm/job-reader.ts). */
export const NOT_READ_YET = 'not read yet';

/** A line of the job pane (scheduler/view.ts); dim: a last-known value while the controller does not answer. */
type SlurmLine = JobLine;

function jobName(job: SlurmJob): string {
	const array = job.arrayJobId !== null && job.arrayTaskId !== null ? ` (array ${job.arrayJobId})` : '';
	return `SLURM job ${job.jobId}${array} ${job.name}`;
}

/**
 * SLURM's exit words: `exit 99 — saved for requeue`, `killed by SIGKILL`, and a code over 128 read as the shell
 * reports a child killed by a signal, `exit 143 (128 + SIGTERM)`: a batch script whose srun was killed by TERM.
 */
function slurmExitWords(exit: ExitStatus | null): string {
	const code = exit?.code ?? null;
	const signal = code !== null && code > 128 ? signalName(String(code - 128)) : null;
	return signal === null ? jobExitWords(exit) : `exit ${code} (128 + SIG${signal})`;
}

/** `FAILED (NonZeroExitCode), exit 99 — saved for requeue`; TIMEOUT also says which limit it reached. */
function endOf(job: SlurmJob): string {
	const state = job.reason === null ? job.state : `${job.state} (${job.reason})`;
	const limit =
		job.state === 'TIMEOUT' && job.timeLimitS !== null
			? `: its ${formatDuration(job.timeLimitS)} time limit reached`
			: '';
	return `${state}${limit}, ${slurmExitWords(job.exit)}`;
}

/** `SLURM job 42 ended: TIMEOUT (TimeLimit): its 1 m 00 s time limit reached, exit 143 (128 + SIGTERM)`. */
export function slurmEndText(job: SlurmJob): string {
	return `SLURM job ${job.jobId} ended: ${endOf(job)}`;
}

/** A step's end that /proc could not read, with its job's from SLURM: `job slurm:42.0 ended; SLURM job 42 FAILED…`. */
export function slurmStepEndText(stepJob: string, job: SlurmJob): string {
	return `job ${stepJob} ended; SLURM job ${job.jobId} ${endOf(job)}`;
}

/** `SLURM job 42 TIMEOUT (TimeLimit)…`: how the controller says a step of `stepJob` ended; null: it does not. */
export function slurmStepEnd(stepJob: string, view: SlurmView | null | undefined): string | null {
	const job = endedSlurmJobOf(stepJob, view);
	return job === null ? null : `SLURM job ${job.jobId} ${endOf(job)}`;
}

/**
 * The controller's answer when it is about a step of `stepJob` (`slurm:42.0`) and says the job ended; else null.
 * Where /proc could not read a SLURM step's exit, this is how it ended.
 */
function endedSlurmJobOf(stepJob: string, view: SlurmView | null | undefined): SlurmJob | null {
	if (view?.status !== 'ok' || (view.job.exit ?? null) === null) return null;
	return stepJob.startsWith(`slurm:${view.job.jobId}.`) ? view.job : null;
}

/** `SLURM job 42 train · RUNNING · root · debug · nodes n[1-4] · restart 1, requeueable`; an ended job with its exit. */
export function titleOf(job: SlurmJob, compact: boolean): string {
	const waiting = job.reason !== null && job.state !== 'RUNNING' ? `${job.state} (${job.reason})` : job.state;
	// `?? null`: a snapshot from an agent older than the field has none.
	const exit = job.exit ?? null;
	const state = exit === null ? waiting : `${waiting}, ${slurmExitWords(exit)}`;
	const who = compact ? [] : [job.user, job.partition];
	const restarts = `restart ${job.restarts}${job.requeue ? ', requeueable' : ', not requeueable'}`;
	const tasks = job.tasks === null ? [] : [`${job.tasks} task${job.tasks === 1 ? '' : 's'}`];
	return [jobName(job), state, ...who, `nodes ${job.nodes || '-'}`, ...tasks, restarts].join(' · ');
}

/** `1 h 02 m of 4 h 00 m · 2 h 57 m left · warning USR1 to the batch shell 120 s before the end (batch script)`. */
export function timeOf(job: SlurmJob): string {
	const elapsed = job.elapsedS === null ? '-' : formatDuration(job.elapsedS);
	const limit = job.timeLimitS === null ? '· no time limit' : `of ${formatDuration(job.timeLimitS)}`;
	const left = job.timeLeftS === null ? '' : ` · ${formatDuration(job.timeLeftS)} left`;
	let warning: string;
	if (job.warning !== null) {
		const to = job.warning.batchOnly ? ' to the batch shell' : '';
		warning = `warning SIG${job.warning.signal}${to} ${formatDuration(job.warning.leadS)} before the end (${job.warning.from})`;
	} else warning = `warning signal: ${job.warningUnknown ?? 'none'}`;
	return `time ${elapsed} ${limit}${left} · ${warning}`;
}

/** `steps 42.0 (2 tasks, RUNNING) · 42.batch · 42.extern`. */
function stepsOf(job: SlurmJob): string {
	if (job.steps.length === 0) return 'steps none yet';
	const steps = job.steps.map(step => {
		const tasks = step.tasks === null ? '' : `${step.tasks} task${step.tasks === 1 ? '' : 's'}, `;
		return /\.\d+$/.test(step.id) ? `${step.id} ${step.name} (${tasks}${step.state})` : step.id;
	});
	return `steps ${steps.join(' · ')}`;
}

function riskOf(risk: DeadlineRisk | null): SlurmLine | null {
	return risk === null ? null : {text: timeAtRiskText(risk), level: risk.level};
}

function jobLines(job: SlurmJob, risk: DeadlineRisk | null, compact: boolean, stale: boolean): SlurmLine[] {
	const lines: SlurmLine[] = [
		{text: titleOf(job, compact), level: 'ok', stale},
		{text: timeOf(job), level: 'ok', stale},
	];
	const riskLine = stale ? null : riskOf(risk);
	if (riskLine !== null) lines.push(riskLine);
	lines.push({text: stepsOf(job), level: 'ok', stale});
	return lines;
}

/**
 * The pane's lines, most important first (the pane cuts from the end). Empty without a SLURM job. `risk`: the
 * snapshot's deadline judged against the saves (Snapshot.deadlineRisk).
 */
export function slurmLines(view: SlurmView | null, risk: DeadlineRisk | null, compact: boolean): SlurmLine[] {
	// The job's name, reason, node list and the controller's error text are SLURM's: printable before they are shown.
	return linesOf(view, risk, compact).map(line => ({...line, text: printable(line.text)}));
}

function linesOf(view: SlurmView | null, risk: DeadlineRisk | null, compact: boolean): SlurmLine[] {
	if (view === null) return [];
	if (view.status === 'ok') return jobLines(view.job, risk, compact, false);
	if (view.status === 'not-found') {
		const text = `SLURM job ${view.jobId} not found: it ended longer ago than the controller keeps jobs, or the id is wrong`;
		return [{text, level: 'warn'}];
	}
	if (view.reason === NOT_READ_YET) return [{text: 'SLURM: asking the controller about the job…', level: 'ok'}];
	const head: SlurmLine = {text: `SLURM: ${view.reason} (tried ${localTime(view.readAt).slice(11)})`, level: 'warn'};
	if (view.last === null) return [head];
	// What the controller said last, dimmed: the job may have moved on since.
	return [head, ...jobLines(view.last, null, compact, true)];
}

import {slurmViewOf} from '../scheduler-state.js';
import type {SlurmJob, SlurmView} from '../types.js';
import type {Level, Snapshot} from '../../core/types.js';
import {LEVEL_WORD} from '../../format/levels.js';
import {NOT_READ_YET, timeOf, titleOf} from './job-lines.js';
import {timeAtRiskText} from '../../format/time-at-risk.js';
import {printable} from '../../format/printable.js';
import {localTime} from '../../format/time.js';

// The SLURM job in the headless view: a line when what the controller says changes (state, restarts, reachable or
// not) and when the time left against the save cadence changes level, not every tick (the job pane's numbers
// count down each second; a .out file wants news). With --json the same news as objects between the records.

export interface SlurmNews {
	/** Lines for stderr, oldest first. */
	readonly lines: readonly string[];
	/** With --json, objects for stdout. */
	readonly records: readonly SlurmRecord[];
}

export interface SlurmRecord {
	readonly event: 'slurm';
	readonly time: string;
	readonly status: SlurmView['status'];
	readonly job: ReturnType<typeof jobRecord> | null;
	readonly reason: string | null;
	readonly time_at_risk: {readonly text: string; readonly level: Level; readonly work_at_risk_s: number | null} | null;
}

function jobRecord(job: SlurmJob) {
	return {
		job_id: job.jobId,
		array_job_id: job.arrayJobId,
		array_task_id: job.arrayTaskId,
		name: job.name,
		user: job.user,
		partition: job.partition,
		state: job.state,
		reason: job.reason,
		nodes: job.nodes,
		tasks: job.tasks,
		elapsed_s: job.elapsedS,
		time_limit_s: job.timeLimitS,
		time_left_s: job.timeLeftS,
		restarts: job.restarts,
		requeue: job.requeue,
		// An ended job's ExitCode, as the events' `exit`; null while it runs (or from an agent that predates it).
		exit: job.exit ?? null,
		warning: job.warning && {
			signal: job.warning.signal,
			lead_s: job.warning.leadS,
			batch_only: job.warning.batchOnly,
			from: job.warning.from,
		},
		warning_unknown: job.warningUnknown,
		steps: job.steps.map(step => ({id: step.id, name: step.name, state: step.state, tasks: step.tasks})),
	};
}

/** What makes a reading news: reachability, the job's state and restarts; not its clock. */
function keyOf(view: SlurmView): string {
	if (view.status === 'ok') return `ok|${view.job.state}|${view.job.restarts}|${view.job.steps.length}`;
	if (view.status === 'not-found') return `not-found|${view.jobId}`;
	return `unavailable|${view.reason}`;
}

export class SlurmReport {
	#key: string | null = null;
	#riskLevel: Level | null = null;

	/** The news in this snapshot; nothing when it has no SLURM view or nothing changed. */
	update(snapshot: Snapshot): SlurmNews {
		const view = slurmViewOf(snapshot.scheduler);
		if (view === null || (view.status === 'unavailable' && view.reason === NOT_READ_YET))
			return {lines: [], records: []};
		const at = localTime(snapshot.time);
		const lines: string[] = [];
		const job = view.status === 'ok' ? view.job : null;
		const judged = job === null ? null : (snapshot.deadlineRisk ?? null);
		const risk = judged && {text: timeAtRiskText(judged), level: judged.level, workAtRiskS: judged.workAtRiskS};
		const key = keyOf(view);
		const changed = key !== this.#key;
		const riskChanged = risk !== null && risk.level !== this.#riskLevel;
		// A requeue and the resumed run are job events (core/requeue-events.ts), printed with the others.
		if (changed) {
			if (job !== null) lines.push(`${at} ${titleOf(job, false)}; ${timeOf(job)}`);
			else if (view.status === 'not-found') lines.push(`${at} WARN slurm job ${view.jobId} not found`);
			else if (view.status === 'unavailable') lines.push(`${at} WARN slurm: ${view.reason}`);
		}
		if (risk !== null && (riskChanged || changed)) {
			lines.push(`${at} ${risk.level === 'ok' ? '' : `${LEVEL_WORD[risk.level]} `}${risk.text}`);
		}
		this.#key = key;
		if (risk !== null) this.#riskLevel = risk.level;
		if (lines.length === 0) return {lines, records: []};
		const record: SlurmRecord = {
			event: 'slurm',
			time: new Date(snapshot.time).toISOString(),
			status: view.status,
			job: job === null ? (view.status === 'unavailable' && view.last ? jobRecord(view.last) : null) : jobRecord(job),
			reason: view.status === 'unavailable' ? view.reason : null,
			time_at_risk: risk && {text: risk.text, level: risk.level, work_at_risk_s: risk.workAtRiskS},
		};
		// The job's name, reason, partition and nodes and the controller's error text are SLURM's: shown, not obeyed.
		return {lines: lines.map(printable), records: [record]};
	}
}

import type {SlurmJobRecord} from './job-record.js';
import {slurmExit, timeLeftSeconds} from './slurm-values.js';

// `squeue --json` (SLURM 21.08+). Two shapes of the same fields:
// - 22.05 (openapi/v0.0.38, recorded in test/fixtures/slurm/): plain numbers, `null` for unset or INFINITE
//   (time_limit of an UNLIMITED job is null), 0 for unset times, job_state a string, time_limit in MINUTES;
// - 23.02+ (v0.0.39 and later): numbers wrapped as {set, infinite, number}, job_state a list of flags
//   (['RUNNING'] or ['PENDING', 'REQUEUED']).
// 22.05 ignores `-j`: it lists every job, and a job it does not know is simply absent. A controller that does not
// answer still exits 0, with an empty list and an `errors` entry (recorded in dead.squeue.json).

type Json = unknown;

function field(object: Json, key: string): Json {
	return typeof object === 'object' && object !== null ? (object as Record<string, Json>)[key] : undefined;
}

/** A number in either shape; null when unset, infinite or absent. */
function numberOf(value: Json): number | null {
	if (typeof value === 'number') return Number.isFinite(value) ? value : null;
	if (typeof value === 'object' && value !== null) {
		if (field(value, 'set') !== true || field(value, 'infinite') === true) return null;
		const number = field(value, 'number');
		return typeof number === 'number' ? number : null;
	}
	return null;
}

/** True when a wrapped number says INFINITE (23.02+); 22.05 gives null, indistinguishable from unset. */
function isInfinite(value: Json): boolean {
	return field(value, 'infinite') === true;
}

function text(value: Json): string {
	return typeof value === 'string' ? value : '';
}

function optionalText(value: Json): string | null {
	const string = text(value);
	return string === '' || string === 'None' ? null : string;
}

/** Epoch seconds → ms; SLURM's 0 means "not set". */
function epochMs(value: Json): number | null {
	const seconds = numberOf(value);
	return seconds === null || seconds <= 0 ? null : seconds * 1000;
}

/** 22.05: 'RUNNING'; 23.02+: ['RUNNING'] or ['PENDING', 'REQUEUED'] (the base state first). */
function stateOf(value: Json): string {
	if (Array.isArray(value)) return typeof value[0] === 'string' ? value[0] : 'UNKNOWN';
	return text(value) || 'UNKNOWN';
}

/**
 * `exit_code` as [code, signal]: 22.05 gives the raw wait status (exit 99 → 25344, SIGTERM → 15, as scontrol's 99:0
 * and 0:15); 23.02+ an object with `return_code` and `signal.id`, each a number or a wrapped one.
 */
function exitCodeOf(value: Json): [number | null, number | null] {
	if (typeof value === 'number') return Number.isInteger(value) ? [(value >> 8) & 0xff, value & 0x7f] : [null, null];
	return [numberOf(field(value, 'return_code')), numberOf(field(field(value, 'signal'), 'id'))];
}

/** One entry of `jobs` → its record. `now` (epoch ms) gives the elapsed time, which squeue --json does not print. */
function jobRecord(job: Json, now: number): SlurmJobRecord | null {
	const id = numberOf(field(job, 'job_id'));
	if (id === null) return null;
	const state = stateOf(field(job, 'job_state'));
	const arrayJobId = numberOf(field(job, 'array_job_id'));
	const arrayTaskId = numberOf(field(job, 'array_task_id'));
	const limitMinutes = numberOf(field(job, 'time_limit'));
	const timeLimitS = limitMinutes === null || isInfinite(field(job, 'time_limit')) ? null : limitMinutes * 60;
	const pending = state === 'PENDING';
	const startTime = pending ? null : epochMs(field(job, 'start_time'));
	const endTime = pending ? null : epochMs(field(job, 'end_time'));
	// Elapsed: to now while running, to the end once ended (suspension ignored: squeue --json has no run time).
	const until = state === 'RUNNING' ? now : endTime;
	const elapsedS = startTime === null || until === null ? null : Math.max(0, Math.round((until - startTime) / 1000));
	return {
		jobId: String(id),
		// array_job_id is 0 for a job outside an array.
		arrayJobId: arrayJobId === null || arrayJobId === 0 ? null : String(arrayJobId),
		arrayTaskId: arrayTaskId === null ? optionalText(field(job, 'array_task_string')) : String(arrayTaskId),
		name: text(field(job, 'name')),
		user: text(field(job, 'user_name')),
		partition: text(field(job, 'partition')),
		state,
		reason: optionalText(field(job, 'state_reason')),
		nodes: text(field(job, 'nodes')),
		batchHost: optionalText(field(job, 'batch_host')),
		workDir: optionalText(field(job, 'current_working_directory')),
		submitTime: epochMs(field(job, 'submit_time')),
		startTime,
		endTime,
		elapsedS,
		timeLimitS,
		timeLeftS: timeLeftSeconds(state, timeLimitS, elapsedS),
		restarts: numberOf(field(job, 'restart_cnt')) ?? 0,
		requeue: field(job, 'requeue') === true,
		tasks: numberOf(field(job, 'tasks')),
		exit: slurmExit(state, ...exitCodeOf(field(job, 'exit_code'))),
	};
}

export interface SqueueJson {
	readonly jobs: SlurmJobRecord[];
	/** squeue's own `errors` (a controller that does not answer), as one line each. */
	readonly errors: string[];
	/** 'SLURM 22.05.8' from `meta`, when given. */
	readonly version: string | null;
}

/** The whole output; throws on text that is not JSON (the caller reports it). */
export function parseSqueueJson(output: string, now: number): SqueueJson {
	const parsed: Json = JSON.parse(output);
	const list = field(parsed, 'jobs');
	const jobs = (Array.isArray(list) ? list : [])
		.map(job => jobRecord(job, now))
		.filter((job): job is SlurmJobRecord => job !== null);
	const errorList = field(parsed, 'errors');
	const errors = (Array.isArray(errorList) ? errorList : []).map(error =>
		[text(field(error, 'source')), text(field(error, 'description')), text(field(error, 'error'))]
			.filter(Boolean)
			.join(': '),
	);
	const meta = field(parsed, 'meta');
	// 'Slurm' in 22.05, 'slurm' from 23.02 on.
	const release = text(field(field(meta, 'Slurm') ?? field(meta, 'slurm'), 'release'));
	return {jobs, errors, version: release ? `SLURM ${release}` : null};
}

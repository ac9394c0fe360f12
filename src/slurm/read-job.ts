import type {SlurmJob, SlurmView, SlurmWarning} from './types.js';
import {parseSignalName, signalNumber} from '../ranks/signals.js';
import {findTrap} from './signal-trap.js';
import {shellTrapKind} from './batch-readiness.js';
import {errorMessage} from '../core/errors.js';
import {pickJob, type SlurmJobRecord} from './job-record.js';
import {batchScriptWarning, COMMAND_LINE_SIGNAL_UNKNOWN} from './parse-batch-script.js';
import {parseScontrolJobs} from './parse-scontrol-job.js';
import {parseSqueueJson} from './parse-squeue-json.js';
import {isNoStepsAnswer, parseScontrolSteps} from './parse-steps.js';
import {controllerAddress, firstLine, isControllerDown, runSlurm, type SlurmRun} from './slurm-exec.js';

// One read of one job: its record (squeue --json, else scontrol show job -o), its live steps (scontrol show step
// -o) and its warning signal (the batch script, read once per job id and restart). Never throws: a failure is an
// 'unavailable' view that says why.

export interface ReadContext {
	readonly env: NodeJS.ProcessEnv;
	readonly timeoutMs: number;
	/** Whether squeue has --json: probed on the first read, then kept. */
	json?: boolean;
	/** `jobId:restarts` → the warning fields read from that run's batch script. */
	readonly scripts: Map<string, Pick<SlurmJob, 'warning' | 'warningUnknown'>>;
	/** KillWait, read on the first read; null: not readable. */
	killWaitS?: number | null;
}

export function readContext(env: NodeJS.ProcessEnv = process.env, timeoutMs = 5_000): ReadContext {
	return {env, timeoutMs, scripts: new Map()};
}

/** Thrown inside a read to end it with a view; caught in readSlurmJob. */
class ReadEnd extends Error {
	readonly view: SlurmView;
	constructor(view: SlurmView) {
		super('read ended');
		this.view = view;
	}
}

async function unavailable(context: ReadContext, detail: string, readAt: number): Promise<never> {
	const reason = `slurmctld at ${await controllerAddress(context.env)} not answering: ${detail}`;
	throw new ReadEnd({status: 'unavailable', reason, readAt, last: null});
}

/** Runs a client; a missing command, a timeout or a controller that does not answer ends the read. */
async function run(context: ReadContext, command: string, args: string[], readAt: number): Promise<SlurmRun> {
	const result = await runSlurm(command, args, context);
	if (result.failure?.endsWith('not on a SLURM node'))
		throw new ReadEnd({status: 'unavailable', reason: result.failure, readAt, last: null});
	if (result.failure !== null) return unavailable(context, result.failure, readAt);
	if (result.code !== 0 && isControllerDown(result.stderr))
		return unavailable(context, firstLine(result.stderr), readAt);
	return result;
}

/** squeue --json exists from 21.08 on; its --help lists it (probed on the real 22.05). */
async function probeJson(context: ReadContext, readAt: number): Promise<boolean> {
	if (context.json === undefined) {
		const help = await run(context, 'squeue', ['--help'], readAt);
		context.json = help.code === 0 && /--json\b/.test(help.stdout);
	}
	return context.json;
}

async function readRecord(context: ReadContext, jobId: string, readAt: number): Promise<SlurmJobRecord | null> {
	if (await probeJson(context, readAt)) {
		// -j narrows the list from 23.02 on; 22.05 lists every job whatever -j says, and pickJob picks.
		const result = await run(context, 'squeue', ['--json', '--states=all', '-j', jobId], readAt);
		if (result.code !== 0 && /Invalid job id/i.test(result.stderr)) return null;
		if (result.code !== 0)
			return unavailable(context, firstLine(result.stderr) || `squeue exit ${result.code}`, readAt);
		let parsed: ReturnType<typeof parseSqueueJson>;
		try {
			parsed = parseSqueueJson(result.stdout, readAt);
		} catch (error) {
			return unavailable(context, `squeue --json printed no JSON (${errorMessage(error)})`, readAt);
		}
		// A controller that does not answer: exit 0, no jobs, and an entry in errors (22.05).
		const errors = parsed.errors.filter(error => !/Invalid job id/i.test(error));
		if (errors.length > 0 && parsed.jobs.length === 0) return unavailable(context, errors.join('; '), readAt);
		// A squeue that ignored -j listed the whole queue: on a busy cluster that is thousands of jobs every read,
		// so the next reads ask scontrol for the one job instead.
		if (parsed.jobs.some(job => job.jobId !== jobId && `${job.arrayJobId}_${job.arrayTaskId}` !== jobId))
			context.json = false;
		return pickJob(parsed.jobs, jobId);
	}
	const result = await run(context, 'scontrol', ['show', 'job', '-o', jobId], readAt);
	if (result.code !== 0 && /Invalid job id/i.test(result.stderr)) return null;
	if (result.code !== 0)
		return unavailable(context, firstLine(result.stderr) || `scontrol exit ${result.code}`, readAt);
	return pickJob(parseScontrolJobs(result.stdout), jobId);
}

/** Steps are live only while the job runs; others have none to ask about (one command less for slurmctld). */
async function readSteps(context: ReadContext, record: SlurmJobRecord, readAt: number): Promise<SlurmJob['steps']> {
	if (!['RUNNING', 'COMPLETING', 'SUSPENDED', 'STOPPED'].includes(record.state)) return [];
	const result = await run(context, 'scontrol', ['show', 'step', '-o', record.jobId], readAt);
	if (result.code !== 0) {
		if (isNoStepsAnswer(result.stdout) || /Invalid job id/i.test(result.stderr)) return [];
		return unavailable(context, firstLine(result.stderr) || `scontrol show step exit ${result.code}`, readAt);
	}
	const names = [record.jobId];
	if (record.arrayJobId !== null && record.arrayTaskId !== null)
		names.push(`${record.arrayJobId}_${record.arrayTaskId}`);
	return parseScontrolSteps(result.stdout, names);
}

async function readWarning(
	context: ReadContext,
	record: SlurmJobRecord,
	readAt: number,
): Promise<Pick<SlurmJob, 'warning' | 'warningUnknown'>> {
	const key = `${record.jobId}:${record.restarts}`;
	const cached = context.scripts.get(key);
	if (cached) return cached;
	const result = await run(context, 'scontrol', ['write', 'batch_script', record.jobId, '-'], readAt);
	// 22.05 exits 0 even when it fails ("job script retrieval failed: …" on stderr): stderr decides.
	const failed = result.code !== 0 || /retrieval failed|error/i.test(result.stderr);
	let fields: Pick<SlurmJob, 'warning' | 'warningUnknown'>;
	if (failed) {
		fields = {warning: null, warningUnknown: `batch script not readable (${firstLine(result.stderr) || 'no output'})`};
	} else {
		const parsed = batchScriptWarning(result.stdout);
		if (parsed.kind === 'warning') fields = {warning: withTrap(parsed.warning, result.stdout), warningUnknown: null};
		else if (parsed.kind === 'invalid') fields = {warning: null, warningUnknown: parsed.reason};
		else fields = {warning: null, warningUnknown: COMMAND_LINE_SIGNAL_UNKNOWN};
	}
	context.scripts.set(key, fields);
	return fields;
}

/** The warning with what the script's trap for its signal does: whether the batch shell passes it on (B:). */
function withTrap(warning: SlurmWarning, script: string): SlurmWarning {
	const name = parseSignalName(warning.signal);
	if (name === null) return warning;
	const trap = findTrap(script, name, signalNumber(name));
	return {...warning, shellTrap: trap === null ? 'none' : shellTrapKind(script, trap.command)};
}

/**
 * slurm.conf's KillWait (`scontrol show config`: `KillWait = 30 sec`), read once per reader: the grace between a
 * time limit's or a preemption's SIGTERM and the SIGKILL. null when it cannot be read (the verdict says unknown).
 */
async function killWait(context: ReadContext, readAt: number): Promise<number | null> {
	if (context.killWaitS === undefined) {
		const result = await run(context, 'scontrol', ['show', 'config'], readAt);
		const match = result.code === 0 ? /^KillWait\s*=\s*(\d+)\s*sec/m.exec(result.stdout) : null;
		context.killWaitS = match ? Number(match[1]) : null;
	}
	return context.killWaitS;
}

/** One read of `jobId` ('42', or '42_1' for an array task). */
export async function readSlurmJob(context: ReadContext, jobId: string, now = Date.now): Promise<SlurmView> {
	const readAt = now();
	try {
		const record = await readRecord(context, jobId, readAt);
		if (record === null) return {status: 'not-found', jobId, readAt};
		const steps = await readSteps(context, record, readAt);
		const warning = await readWarning(context, record, readAt);
		const killWaitS = await killWait(context, readAt);
		return {status: 'ok', job: {...record, ...warning, killWaitS, steps}, readAt};
	} catch (error) {
		if (error instanceof ReadEnd) return error.view;
		return {status: 'unavailable', reason: errorMessage(error), readAt, last: null};
	}
}

/** One read for the one-shot commands (`traintop ranks/checkpoints/signal --slurm-job J`). */
export function readSlurmJobOnce(jobId: string, env: NodeJS.ProcessEnv = process.env): Promise<SlurmView> {
	return readSlurmJob(readContext(env), jobId);
}

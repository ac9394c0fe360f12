import type {Readable, Writable} from 'node:stream';
import {type SaveOutcome, saveCame} from '../checkpoints/save-attribution.js';
import type {Settings} from '../config/schema.js';
import {EXIT, UsageError} from '../core/errors.js';
import type {ReadinessOptions} from '../core/job-readiness.js';
import type {Job} from '../core/types.js';
import {printable} from '../format/printable.js';
import {versioned} from '../format/json-version.js';
import {wholeJobWarning} from '../format/whole-job.js';
import {signalState, wouldStop, wouldTerminate} from '../ranks/dispositions.js';
import type {SignalName} from '../ranks/signals.js';
import type {RankSelector} from '../ranks/tree.js';
import type {ScheduledJob} from '../scheduler/task.js';
import {procReader, type ProcReader} from '../system/procfs.js';
import {existingRunDir} from './checkpoints.js';
import {type DrillAnswer, drillJson, drillText} from './drill-format.js';
import {drillVerdict} from './drill-verdict.js';
import {drillWatch} from './drill-watch.js';
import {noRanksText} from './ranks.js';
import {confirm} from './signal.js';
import {pickSignalPlan} from './signal-pick.js';
import {planLines, type SignalPlan, type TargetResult} from './signal-plan.js';

// `traintop drill`: a rehearsal of the save a preemption needs. It sends the save signal (never the emergency one)
// to one job's ranks by `signal save --wait`'s route and gates, and never forces: where the save signal would kill
// or stop a rank, or a rank ignores it, nothing is sent. It times the save the signal asked for, then judges the
// job's readiness with that fresh write time among the saves (core/job-readiness.ts).

export interface DrillCommandOptions {
	readonly settings: Settings;
	readonly selector: RankSelector;
	/** --job. */
	readonly job: string | null;
	/** A scheduler's job flag: its job, by its route. */
	readonly scheduledJob: ScheduledJob | null;
	/** RUN_DIR: it names the job and is where the save is watched; null: the job's rank's working directory. */
	readonly runDir: string | null;
	/** --grace, --max-work-at-risk. */
	readonly readiness: ReadinessOptions;
	readonly yes: boolean;
	readonly json: boolean;
	/** A terminal to ask on: stdin and stderr are TTYs. */
	readonly interactive: boolean;
	readonly stdin: Readable;
	readonly stdout: Writable;
	readonly stderr: Writable;
}

/** The save signal, unless it is the one a preemption sends: a drill rehearses the save, never the emergency. */
function saveSignalOf(settings: Settings): SignalName {
	const signal = settings.saveSignal;
	if (signal === settings.emergencySignal || signal === 'SIGTERM')
		throw new UsageError(
			`drill: the save signal is ${signal}, the emergency one: a drill sends only a save signal that is not (--save-signal SIGUSR1)`,
		);
	return signal;
}

/** Why each rank would not take the save signal as a save (its /proc read now); empty: every rank would. */
function blockers(jobs: readonly Job[], signal: SignalName, proc: ProcReader): string[] {
	const out: string[] = [];
	for (const rank of jobs.flatMap(job => job.ranks)) {
		const status = proc.status(rank.pid);
		if (status === null) continue; // gone: the send says so for that rank
		const state = signalState(status, signal);
		const who = rank.rank === null ? `pid ${rank.pid}` : `rank ${rank.rank} (pid ${rank.pid})`;
		if (wouldTerminate(state)) out.push(`${who} has no handler for ${signal}: the signal would kill it`);
		else if (wouldStop(signal, state)) out.push(`${who}: ${signal} would stop it, which hangs the job`);
		else if (state.disposition === 'ignored') out.push(`${who} ignores ${signal}: it would not save`);
	}
	return out;
}

/** `traintop drill`: 0 when the save came (whatever the verdict), 3 when refused or no save came, 2 on bad input. */
export async function runDrillCommand(o: DrillCommandOptions): Promise<number> {
	const signal = saveSignalOf(o.settings);
	const say = (line: string) => o.stderr.write(`${printable(line)}\n`);
	const refuse = (why: string, extra: Record<string, unknown> = {}): number => {
		say(`traintop: drill: ${why}; nothing sent`);
		if (o.json) o.stdout.write(`${JSON.stringify(versioned({signal, refused: why, ...extra, results: []}))}\n`);
		return EXIT.actionRefused;
	};
	if (o.settings.readonly) return refuse('--readonly');
	const runDir = o.runDir === null ? null : existingRunDir(o.runDir);
	const proc = procReader();
	const label = `${signal} (save, drill)`;
	const picked = await pickSignalPlan(
		{
			settings: o.settings,
			selector: o.selector,
			job: o.job,
			scheduledJob: o.scheduledJob,
			batch: false,
			runDir,
			command: 'drill',
			withRunDir: 'traintop drill RUN_DIR',
		},
		{signal, label, ranks: undefined, force: false, emergency: false, proc},
	);
	if (picked.kind === 'none') return refuse(noRanksText(o.selector));
	if (picked.kind === 'refused')
		return refuse(picked.refused, {[`${picked.scheduled.kind}_job`]: picked.scheduled.jobId});
	const {plan, jobs} = picked;
	if (plan.preview.length === 0) return refuse(`job ${String(plan.job.id)} has no ranks left`, {job: plan.job});
	const blocked = blockers(jobs, signal, proc);
	if (blocked.length > 0) return refuse(`${blocked.join('; ')} (a drill never forces)`, {job: plan.job});
	for (const line of planLines(plan, wholeJobWarning)) say(line);
	if (!o.yes) {
		if (!o.interactive)
			throw new UsageError(`drill: no terminal to confirm on; add --yes to send ${signal} to ${plan.reach}`);
		if (!(await confirm(plan.question, o.stdin, o.stderr))) {
			say('cancelled: nothing sent');
			return EXIT.actionRefused;
		}
	}
	return await sendAndJudge(o, plan, jobs, signal, runDir);
}

/** Sends, waits for the save, judges; the watcher is set up (and the run dir scanned) before the signal goes. */
async function sendAndJudge(
	o: DrillCommandOptions,
	plan: SignalPlan,
	jobs: readonly Job[],
	signal: SignalName,
	runDir: string | null,
): Promise<number> {
	const say = (line: string) => o.stderr.write(`${printable(line)}\n`);
	const watch = await drillWatch(o.settings, runDir, plan.watchFrom);
	try {
		await watch.settle();
		const sentAt = Date.now();
		const results = await plan.send();
		for (const result of results) say(resultLine(result));
		let answer: DrillAnswer | null = null;
		let underWay: readonly string[] = [];
		if (results.some(r => r.outcome === 'sent')) {
			say(`waiting up to ${o.settings.timeout} s for the save in ${watch.runDir}…`);
			const job = typeof plan.job.id === 'string' ? plan.job.id : null;
			const waited = await watch.await(sentAt, signal, job);
			const {outcome, seenAt} = waited;
			underWay = waited.underWay;
			const {checkpoint} = outcome;
			// The save asked for, or one that may be it (its kind unrecorded); a periodic one that came instead is not.
			if (checkpoint !== null && saveCame(outcome, 'manual'))
				answer = {checkpoint, outcome, afterSignalS: (seenAt - sentAt) / 1000};
			else say(noSaveLine(outcome, watch.runDir, o.settings.timeout));
		}
		const verdict = await drillVerdict({
			settings: o.settings,
			selector: o.selector,
			runDir,
			jobs,
			index: watch.index(),
			options: o.readiness,
		});
		const report = {plan, signal, results, sentAt, answer, underWay, verdict, now: Date.now()};
		if (o.json) o.stdout.write(`${JSON.stringify(drillJson(report), null, 2)}\n`);
		else for (const line of drillText(report)) o.stdout.write(`${printable(line)}\n`);
		return answer !== null && results.every(r => r.outcome === 'sent') ? EXIT.ok : EXIT.actionRefused;
	} finally {
		await watch.stop();
	}
}

function resultLine(result: TargetResult): string {
	const who = result.pid === null ? result.target : `${result.target}  pid ${result.pid}`;
	return `${who}  ${result.outcome}${result.reason ? `: ${result.reason}` : ''}`;
}

function noSaveLine(outcome: SaveOutcome, runDir: string, timeout: number): string {
	if (outcome.checkpoint === null) return `drill: no new checkpoint in ${runDir} within ${timeout} s after the signal`;
	return `drill: the save asked for did not come within ${timeout} s${outcome.note ? ` (${outcome.note})` : ''}`;
}

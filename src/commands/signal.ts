import {createInterface} from 'node:readline/promises';
import type {Readable, Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import {EXIT, UsageError} from '../core/errors.js';
import type {Job} from '../core/types.js';
import type {SaveOutcome} from '../checkpoints/save-attribution.js';
import {CheckpointWatcher} from '../checkpoints/watch.js';
import {jobLine} from '../format/jobs.js';
import {existingRunDir} from './checkpoints.js';
import {chooseJob} from '../ranks/choose-job.js';
import {parseSignalName, type SignalName} from '../ranks/signals.js';
import type {RankSelector} from '../ranks/tree.js';
import {procReader} from '../system/procfs.js';
import {noRanksText, scanRanks} from './ranks.js';
import {localPlan, type SignalPlan, slurmJobPick, slurmPlan, type TargetResult} from './signal-plan.js';

/** `save` and `emergency` name the configured signals; anything else must be a signal name. */
function resolveAction(
	action: string | undefined,
	settings: Settings,
): {signal: SignalName; label: string; expect: 'manual' | 'emergency' | null} {
	if (action === undefined)
		throw new UsageError('signal needs what to send: save, emergency or a signal name (e.g. SIGUSR2)');
	if (action === 'save') return {signal: settings.saveSignal, label: `${settings.saveSignal} (save)`, expect: 'manual'};
	if (action === 'emergency')
		return {
			signal: settings.emergencySignal,
			label: `${settings.emergencySignal} (emergency checkpoint)`,
			expect: 'emergency',
		};
	const signal = parseSignalName(action);
	if (!signal)
		throw new UsageError(
			`unknown signal '${action}': use save, emergency or a signal name such as SIGUSR2, USR2 or 12`,
		);
	return {signal, label: signal, expect: null};
}

async function confirm(question: string, stdin: Readable, stderr: Writable): Promise<boolean> {
	const rl = createInterface({input: stdin, output: stderr});
	try {
		// Default is No: Enter alone cancels.
		return /^y(es)?$/i.test((await rl.question(question)).trim());
	} finally {
		rl.close();
	}
}

export interface SignalCommandOptions {
	readonly settings: Settings;
	readonly selector: RankSelector;
	/** --job: which job, when several are found (a SLURM job id that no local job answers to: that SLURM job). */
	readonly job: string | null;
	/** --slurm-job: the SLURM job, wherever its ranks run (the route follows from what this node sees). */
	readonly slurmJob?: string | null;
	/** --batch: signal the SLURM job's batch shell (only where it handles the signal). */
	readonly batch?: boolean;
	readonly action: string | undefined;
	readonly ranks: readonly number[] | undefined;
	readonly yes: boolean;
	readonly force: boolean;
	readonly json: boolean;
	/** A terminal to ask on: stdin and stderr are TTYs. */
	readonly interactive: boolean;
	/** Wait for the new checkpoint the signal should produce (an action is confirmed by its effect). */
	readonly wait: boolean;
	/** RUN_DIR: it names the job (the one whose ranks use it) and is where the save is watched; null = none given. */
	readonly runDir: string | null;
	readonly stdin: Readable;
	readonly stdout: Writable;
	readonly stderr: Writable;
}

/** The jobs found, and how to pick one: said when nothing (or several things) picked one. */
function refusal(why: string, jobs: readonly Job[]): UsageError {
	return new UsageError(
		[
			`signal: ${why}; nothing sent. Jobs found:`,
			...jobs.map(job => `  ${jobLine(job)}`),
			'Pick one: traintop signal ACTION RUN_DIR (the run dir its ranks use), --job ID, --pid PID (its launcher or a rank) or --match REGEX.',
		].join('\n'),
	);
}

/** `traintop signal …`: 0 when every target got the signal, 3 when any did not (or none was found), 2 when no one job is picked. */
export async function runSignalCommand(o: SignalCommandOptions): Promise<number> {
	const {signal, label, expect} = resolveAction(o.action, o.settings);
	const say = (line: string) => o.stderr.write(`${line}\n`);
	if (o.settings.readonly) {
		say(`traintop: --readonly: no signal is sent (${label} refused)`);
		return EXIT.actionRefused;
	}
	const runDir = o.runDir === null ? null : existingRunDir(o.runDir);
	const set = await scanRanks(o.settings, o.selector, {runDir});
	const common = {signal, label, ranks: o.ranks, force: o.force, proc: procReader()};
	const slurmJob = slurmJobPick(set, o.job, o.slurmJob ?? null);
	const planned =
		slurmJob === null
			? null
			: await slurmPlan({
					...common,
					jobId: slurmJob,
					set,
					batch: o.batch ?? false,
					pickedBy: o.slurmJob ? `--slurm-job ${slurmJob}` : `--job ${slurmJob}`,
				});
	// --job J that SLURM does not know either: the jobs found here are listed, as for any unknown --job.
	const fallBack = planned !== null && 'refused' in planned && planned.unknownJob && !o.slurmJob && !o.batch;
	if (planned !== null && 'refused' in planned && !fallBack) {
		say(`traintop: signal: ${planned.refused}; nothing sent`);
		if (o.json) {
			const body = {signal, route: null, slurm_job: slurmJob, refused: planned.refused, results: []};
			o.stdout.write(`${JSON.stringify(body)}\n`);
		}
		return EXIT.actionRefused;
	}
	let plan: SignalPlan;
	if (planned !== null && !('refused' in planned)) plan = planned;
	else {
		if (o.batch)
			throw new UsageError('--batch: the batch shell belongs to a SLURM job; name it with --slurm-job J (or --job J)');
		const choice = chooseJob(set, {job: o.job, runDir, selector: o.selector});
		if (choice.kind === 'none') {
			say(`traintop: ${noRanksText(o.selector)}; nothing sent`);
			if (o.json) o.stdout.write(`${JSON.stringify({signal, results: []})}\n`);
			return EXIT.actionRefused;
		}
		if (choice.kind === 'refused') throw refusal(choice.why, choice.jobs);
		plan = localPlan([choice.job], choice.why, common);
	}
	if (plan.preview.length === 0) {
		say(`traintop: job ${String(plan.job.id)} has no ranks left (its launcher is still there); nothing sent`);
		if (o.json) o.stdout.write(`${JSON.stringify({signal, route: plan.route, job: plan.job, results: []})}\n`);
		return EXIT.actionRefused;
	}

	say(plan.heading);
	for (const line of plan.preview) say(`  ${line}`);
	say(`route: ${plan.route}`);
	for (const note of plan.notes) say(`note: ${note}`);
	if (!o.yes) {
		if (!o.interactive) {
			throw new UsageError(`signal: no terminal to confirm on; add --yes to send ${signal} to ${plan.reach}`);
		}
		if (!(await confirm(plan.question, o.stdin, o.stderr))) {
			say('cancelled: nothing sent');
			return EXIT.actionRefused;
		}
	}

	// Watch before sending, so a checkpoint that already existed can never be taken for the new one.
	const watcher = o.wait ? await startWatcher(o, runDir, plan.watchFrom) : null;
	try {
		const sentAt = Date.now();
		const results = await plan.send();
		if (!o.json) for (const result of results) o.stdout.write(`${resultLine(result)}\n`);
		let waited: {outcome: SaveOutcome; seconds: number} | null = null;
		if (watcher && results.some(r => r.outcome === 'sent')) {
			if (!o.json) say(`waiting up to ${o.settings.timeout} s for a new checkpoint in ${watcher.runDir}…`);
			const outcome = expect
				? await watcher.watcher.awaitSave(sentAt, o.settings.timeout * 1000, expect)
				: await watcher.watcher.awaitNewCheckpoint(sentAt, o.settings.timeout * 1000).then(checkpoint => ({
						checkpoint,
						attributed: checkpoint !== null,
						note: null,
					}));
			waited = {outcome, seconds: (Date.now() - sentAt) / 1000};
			if (!o.json) o.stdout.write(`${waitLine(outcome, waited.seconds, watcher.runDir, o.settings.timeout)}\n`);
		}
		if (o.json) {
			const found = waited?.outcome.checkpoint ?? null;
			const checkpoint = waited && {
				saved: found !== null,
				attributed: waited.outcome.attributed,
				note: waited.outcome.note,
				name: found?.name ?? null,
				path: found?.path ?? null,
				step: found?.step ?? null,
				kind: found?.kind ?? null,
				seconds: Math.round(waited.seconds * 10) / 10,
			};
			const body = {
				signal,
				route: plan.route,
				job: plan.job,
				results,
				notes: plan.notes,
				...(waited ? {checkpoint} : {}),
			};
			o.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
		}
		const allSent = results.every(r => r.outcome === 'sent');
		return allSent && (!waited || waited.outcome.checkpoint !== null) ? EXIT.ok : EXIT.actionRefused;
	} finally {
		await watcher?.watcher.stop();
	}
}

/** One target's outcome: `rank 0  pid 4242  sent`, `steps of job 3  sent: scancel --signal=USR1 3`. */
function resultLine(result: TargetResult): string {
	const who = result.pid === null ? result.target : `${result.target}  pid ${result.pid}`;
	return `${who}  ${result.outcome}${result.reason ? `: ${result.reason}` : ''}`;
}

function waitLine(outcome: SaveOutcome, seconds: number, runDir: string, timeout: number): string {
	const {checkpoint} = outcome;
	if (!checkpoint) return `no new checkpoint in ${runDir} within ${timeout} s`;
	const step = checkpoint.step === null ? '' : ` (step ${checkpoint.step}, ${checkpoint.kind})`;
	const what = `${checkpoint.name}${step} in ${seconds.toFixed(1)} s`;
	return outcome.attributed ? `saved ${what}` : `${what}${outcome.note ? ` — ${outcome.note}` : ''}`;
}

/** The run dir to watch: the one given, else where a visible rank runs (relative checkpoint paths start there). */
async function startWatcher(
	o: SignalCommandOptions,
	given: string | null,
	rankPid: number | null,
): Promise<{watcher: CheckpointWatcher; runDir: string}> {
	const runDir = given ?? (rankPid === null ? null : procReader().cwd(rankPid));
	if (!runDir)
		throw new UsageError(
			rankPid === null
				? '--wait: no rank of the job is visible on this node to find its run dir; give RUN_DIR'
				: `--wait: cannot read the working directory of pid ${rankPid}; give RUN_DIR`,
		);
	const watcher = new CheckpointWatcher({
		runDir,
		keep: o.settings.keep,
		poll: o.settings.poll > 0 ? {intervalMs: o.settings.poll * 1000} : null,
	});
	await watcher.start();
	return {watcher, runDir};
}

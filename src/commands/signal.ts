import {createInterface} from 'node:readline/promises';
import type {Readable, Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import {EXIT, UsageError} from '../core/errors.js';
import type {Job, RankProcess} from '../core/types.js';
import type {SaveOutcome} from '../checkpoints/save-attribution.js';
import {CheckpointWatcher} from '../checkpoints/watch.js';
import {jobLine} from '../format/jobs.js';
import {existingRunDir} from './checkpoints.js';
import {chooseJob} from '../ranks/choose-job.js';
import {outcomeLine, previewLine} from '../ranks/preview.js';
import {selectTargets, sendSignal} from '../ranks/send.js';
import {parseSignalName, type SignalName} from '../ranks/signals.js';
import type {RankSelector} from '../ranks/tree.js';
import {procReader} from '../system/procfs.js';
import {noRanksText, scanRanks} from './ranks.js';

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
	/** --job: which job, when several are found. */
	readonly job: string | null;
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
	const choice = chooseJob(set, {
		job: o.job,
		runDir,
		selector: o.selector,
	});
	if (choice.kind === 'none') {
		say(`traintop: ${noRanksText(o.selector)}; nothing sent`);
		if (o.json) o.stdout.write(`${JSON.stringify({signal, results: []})}\n`);
		return EXIT.actionRefused;
	}
	if (choice.kind === 'refused') throw refusal(choice.why, choice.jobs);
	const {job} = choice;
	const {targets, unknown} = selectTargets(job, o.ranks);
	if (unknown.length > 0) {
		const known =
			job.ranks
				.map(r => r.rank)
				.filter(n => n !== null)
				.join(', ') || 'none';
		throw new UsageError(`--rank ${unknown.join(',')}: job ${job.id} has no such rank (found: ${known})`);
	}
	if (targets.length === 0) {
		say(`traintop: job ${job.id} has no ranks left (its launcher is still there); nothing sent`);
		if (o.json) o.stdout.write(`${JSON.stringify({signal, job: jobJson(job), results: []})}\n`);
		return EXIT.actionRefused;
	}

	say(
		`${label} to ${targets.length} of ${job.ranks.length} rank${job.ranks.length === 1 ? '' : 's'} of job ${job.id} (${choice.why}):`,
	);
	for (const target of targets) say(`  ${previewLine(target, signal, o.force)}`);
	if (!o.yes) {
		if (!o.interactive) {
			throw new UsageError(
				`signal: no terminal to confirm on; add --yes to send ${signal} to ${targets.length} rank(s) of job ${job.id}`,
			);
		}
		if (!(await confirm(`Send ${signal} to job ${job.id}? [y/N] `, o.stdin, o.stderr))) {
			say('cancelled: nothing sent');
			return EXIT.actionRefused;
		}
	}

	// Watch before sending, so a checkpoint that already existed can never be taken for the new one.
	const watcher = o.wait ? await startWatcher(o, runDir, job.ranks[0]!) : null;
	try {
		const sentAt = Date.now();
		const {results} = sendSignal({job, ranks: o.ranks, signal, force: o.force, proc: procReader()});
		if (!o.json) for (const result of results) o.stdout.write(`${outcomeLine(result)}\n`);
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
			o.stdout.write(
				`${JSON.stringify({signal, job: jobJson(job), results, ...(waited ? {checkpoint} : {})}, null, 2)}\n`,
			);
		}
		const allSent = results.every(r => r.outcome === 'sent');
		return allSent && (!waited || waited.outcome.checkpoint !== null) ? EXIT.ok : EXIT.actionRefused;
	} finally {
		await watcher?.watcher.stop();
	}
}

function jobJson(job: Job) {
	return {
		id: job.id,
		identity: job.identity,
		launcher: job.launcher && {pid: job.launcher.pid, cmd: job.launcher.cmd},
		run_dir: job.runDir,
	};
}

function waitLine(outcome: SaveOutcome, seconds: number, runDir: string, timeout: number): string {
	const {checkpoint} = outcome;
	if (!checkpoint) return `no new checkpoint in ${runDir} within ${timeout} s`;
	const step = checkpoint.step === null ? '' : ` (step ${checkpoint.step}, ${checkpoint.kind})`;
	const what = `${checkpoint.name}${step} in ${seconds.toFixed(1)} s`;
	return outcome.attributed ? `saved ${what}` : `${what}${outcome.note ? ` — ${outcome.note}` : ''}`;
}

/** The run dir to watch: the one given, else where rank 0 runs (relative checkpoint paths start there). */
async function startWatcher(
	o: SignalCommandOptions,
	given: string | null,
	rank0: RankProcess,
): Promise<{watcher: CheckpointWatcher; runDir: string}> {
	const runDir = given ?? procReader().cwd(rank0.pid);
	if (!runDir)
		throw new UsageError(
			`--wait: cannot read the working directory of rank ${rank0.rank ?? '?'} (pid ${rank0.pid}); give RUN_DIR`,
		);
	const watcher = new CheckpointWatcher({
		runDir,
		keep: o.settings.keep,
		poll: o.settings.poll > 0 ? {intervalMs: o.settings.poll * 1000} : null,
	});
	await watcher.start();
	return {watcher, runDir};
}

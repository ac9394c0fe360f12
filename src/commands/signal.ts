import {createInterface} from 'node:readline/promises';
import type {Readable, Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import {EXIT, UsageError} from '../core/errors.js';
import {type SaveOutcome, saveCame} from '../checkpoints/save-attribution.js';
import {exitLines, exitsJson, saveWatch} from './signal-watch.js';
import {printable} from '../format/printable.js';
import {wholeJobWarning} from '../format/whole-job.js';
import {versioned} from '../format/json-version.js';
import {existingRunDir} from './checkpoints.js';
import type {FleetConnection} from '../fleet/fleet.js';
import type {ExitReport} from '../fleet/node-exit-watch.js';
import {parseSignalName, type SignalName} from '../ranks/signals.js';
import type {RankSelector} from '../ranks/tree.js';
import {procReader} from '../system/procfs.js';
import {noRanksText} from './ranks.js';
import {pickSignalPlan} from './signal-pick.js';
import type {ScheduledJob} from '../scheduler/task.js';
import {planLines, type SignalPlan, type TargetResult} from './signal-plan.js';

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

/** Asks on the terminal; the default is No (Enter alone cancels). Also the drill's question. */
export async function confirm(question: string, stdin: Readable, stderr: Writable): Promise<boolean> {
	const rl = createInterface({input: stdin, output: stderr});
	try {
		return /^y(es)?$/i.test((await rl.question(question)).trim());
	} finally {
		rl.close();
	}
}

export interface SignalCommandOptions {
	readonly settings: Settings;
	readonly selector: RankSelector;
	/** --job: which job, when several are found (a scheduler's job id that no local job answers to: that job). */
	readonly job: string | null;
	/** A scheduler's job flag: its job, wherever its ranks run (the route follows from what this node sees). */
	readonly scheduledJob?: ScheduledJob | null;
	/** --batch: signal the scheduler job's batch shell (only where it handles the signal). */
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
	/** Through a `traintop agent` per node (--hosts, --cluster, a scheduler's job flag with --agents): the agents to run. */
	readonly agents?: readonly FleetConnection[] | null;
}

/** `traintop signal …`: 0 when every target got the signal, 3 when any did not (or none was found), 2 when no one job is picked. */
export async function runSignalCommand(o: SignalCommandOptions): Promise<number> {
	const {signal, label, expect} = resolveAction(o.action, o.settings);
	const say = (line: string) => o.stderr.write(`${printable(line)}\n`);
	if (o.settings.readonly) {
		say(`traintop: --readonly: no signal is sent (${label} refused)`);
		return EXIT.actionRefused;
	}
	if (o.agents) return await signalThroughAgents(o, o.agents, {signal, label, expect});
	const runDir = o.runDir === null ? null : existingRunDir(o.runDir);
	const common = {signal, label, ranks: o.ranks, force: o.force, emergency: expect === 'emergency', proc: procReader()};
	const picked = await pickSignalPlan(
		{
			settings: o.settings,
			selector: o.selector,
			job: o.job,
			scheduledJob: o.scheduledJob ?? null,
			batch: o.batch ?? false,
			runDir,
			command: 'signal',
			withRunDir: 'traintop signal ACTION RUN_DIR',
		},
		common,
	);
	if (picked.kind === 'refused') {
		say(`traintop: signal: ${picked.refused}; nothing sent`);
		if (o.json) {
			const body = versioned({
				signal,
				route: null,
				[`${picked.scheduled.kind}_job`]: picked.scheduled.jobId,
				refused: picked.refused,
				results: [],
			});
			o.stdout.write(`${JSON.stringify(body)}\n`);
		}
		return EXIT.actionRefused;
	}
	if (picked.kind === 'none') {
		say(`traintop: ${noRanksText(o.selector)}; nothing sent`);
		if (o.json) o.stdout.write(`${JSON.stringify(versioned({signal, results: []}))}\n`);
		return EXIT.actionRefused;
	}
	return await carryOut(o, picked.plan, {signal, expect}, runDir);
}

/** Many nodes: the plan through their agents, carried out as any other; the agents end with it. */
async function signalThroughAgents(
	o: SignalCommandOptions,
	connections: readonly FleetConnection[],
	action: {signal: SignalName; label: string; expect: 'manual' | 'emergency' | null},
): Promise<number> {
	if (o.force) throw new UsageError('--force: an agent never forces; signal a node from the node itself to force');
	if (o.batch)
		throw new UsageError("--batch: not through agents; name the scheduler's job with --batch, without --agents");
	const {agentsPlan} = await import('./signal-agents.js');
	const planned = await agentsPlan({
		connections,
		intervalMs: o.settings.interval * 1000,
		signal: action.signal,
		label: action.label,
		emergency: action.expect === 'emergency',
		expect: action.expect,
		ranks: o.ranks,
		job: o.job ?? o.scheduledJob?.jobId ?? null,
		runDir: o.runDir,
		selector: o.selector,
		timeoutS: o.settings.timeout,
	});
	try {
		if (planned.plan === null) {
			o.stderr.write(`traintop: signal: ${printable(String(planned.refused))}; nothing sent\n`);
			if (o.json)
				o.stdout.write(
					`${JSON.stringify(versioned({signal: action.signal, route: 'agents', refused: planned.refused, results: []}))}\n`,
				);
			return EXIT.actionRefused;
		}
		return await carryOut(o, planned.plan, action, null);
	} finally {
		await planned.close();
	}
}

/**
 * Shows the plan, asks (unless --yes), sends, and with --wait confirms the save by its checkpoint (and, for an
 * emergency through the agents, tells how each node's ranks ended).
 */
async function carryOut(
	o: SignalCommandOptions,
	plan: SignalPlan,
	{signal, expect}: {signal: SignalName; expect: 'manual' | 'emergency' | null},
	runDir: string | null,
): Promise<number> {
	const say = (line: string) => o.stderr.write(`${printable(line)}\n`);
	if (plan.preview.length === 0) {
		say(`traintop: job ${String(plan.job.id)} has no ranks left (its launcher is still there); nothing sent`);
		if (o.json)
			o.stdout.write(`${JSON.stringify(versioned({signal, route: plan.route, job: plan.job, results: []}))}\n`);
		return EXIT.actionRefused;
	}

	for (const line of planLines(plan, wholeJobWarning)) say(line);
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
	const watch = o.wait ? await saveWatch(o.settings, plan, runDir) : null;
	const sentAt = Date.now();
	// An emergency ends the job: through the agents its ranks are followed on every node too (from before the send).
	const exits = watch && expect === 'emergency' ? (plan.watchExits?.(sentAt) ?? null) : null;
	try {
		const results = await plan.send();
		if (!o.json) for (const result of results) o.stdout.write(`${printable(resultLine(result))}\n`);
		let waited: {outcome: SaveOutcome; seconds: number} | null = null;
		let exited: ExitReport | null = null;
		if (watch && results.some(r => r.outcome === 'sent')) {
			const andExits = exits ? " and for the job's ranks to exit" : '';
			if (!o.json) say(`waiting up to ${o.settings.timeout} s for a new checkpoint in ${watch.runDir}${andExits}…`);
			const [outcome, report] = await Promise.all([watch.await(sentAt, expect, signal), exits?.settle() ?? null]);
			waited = {outcome, seconds: (Date.now() - sentAt) / 1000};
			exited = report;
			if (!o.json)
				o.stdout.write(`${printable(waitLine(outcome, waited.seconds, watch.runDir, o.settings.timeout))}\n`);
			if (!o.json && report)
				for (const line of exitLines(report, signal, o.settings.timeout)) o.stdout.write(`${printable(line)}\n`);
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
				kind_note: found?.kindNote ?? null,
				seconds: Math.round(waited.seconds * 10) / 10,
			};
			const body = versioned({
				signal,
				route: plan.route,
				job: plan.job,
				results,
				notes: plan.notes,
				...(plan.wholeJob ? {ends_whole_job: plan.wholeJob} : {}),
				...(waited ? {checkpoint} : {}),
				...(exited ? {exits: exitsJson(exited, signal, o.settings.timeout)} : {}),
			});
			o.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
		}
		const allSent = results.every(r => r.outcome === 'sent');
		// With --wait, exit 3 unless the save asked for came (or one that may be it): a periodic save landing instead is not it.
		return allSent && (!waited || saveCame(waited.outcome, expect)) ? EXIT.ok : EXIT.actionRefused;
	} finally {
		exits?.stop();
		await watch?.stop();
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
	// The kind with why, when traintop decided it: `manual: after traintop's SIGUSR1 at 10:42:07`.
	const kind = checkpoint.kindNote === undefined ? checkpoint.kind : `${checkpoint.kind}: ${checkpoint.kindNote}`;
	const step = checkpoint.step === null ? '' : ` (step ${checkpoint.step}, ${kind})`;
	const what = `${checkpoint.name}${step} in ${seconds.toFixed(1)} s`;
	return outcome.attributed ? `saved ${what}` : `${what}${outcome.note ? ` — ${outcome.note}` : ''}`;
}

import {createInterface} from 'node:readline/promises';
import type {Readable, Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import {describeSelector} from '../config/selection.js';
import {EXIT, UsageError} from '../core/errors.js';
import type {Checkpoint, RankProcess} from '../core/types.js';
import {CheckpointWatcher} from '../checkpoints/watch.js';
import {existingRunDir} from './checkpoints.js';
import {outcomeLine, previewLine} from '../ranks/preview.js';
import {selectTargets, sendSignal} from '../ranks/send.js';
import {parseSignalName, type SignalName} from '../ranks/signals.js';
import type {RankSelector} from '../ranks/tree.js';
import {procReader} from '../system/procfs.js';
import {scanRanks} from './ranks.js';

/** `save` and `emergency` name the configured signals; anything else must be a signal name. */
function resolveAction(action: string | undefined, settings: Settings): {signal: SignalName; label: string} {
	if (action === undefined)
		throw new UsageError('signal needs what to send: save, emergency or a signal name (e.g. SIGUSR2)');
	if (action === 'save') return {signal: settings.saveSignal, label: `${settings.saveSignal} (save)`};
	if (action === 'emergency')
		return {signal: settings.emergencySignal, label: `${settings.emergencySignal} (emergency checkpoint)`};
	const signal = parseSignalName(action);
	if (!signal)
		throw new UsageError(
			`unknown signal '${action}': use save, emergency or a signal name such as SIGUSR2, USR2 or 12`,
		);
	return {signal, label: signal};
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
	readonly action: string | undefined;
	readonly ranks: readonly number[] | undefined;
	readonly yes: boolean;
	readonly force: boolean;
	readonly json: boolean;
	/** A terminal to ask on: stdin and stderr are TTYs. */
	readonly interactive: boolean;
	/** Wait for the new checkpoint the signal should produce (an action is confirmed by its effect). */
	readonly wait: boolean;
	/** Where to look for it; null = rank 0's working directory. */
	readonly runDir: string | null;
	readonly stdin: Readable;
	readonly stdout: Writable;
	readonly stderr: Writable;
}

/** `traintop signal …`: 0 when every target got the signal, 3 when any did not (or none was found). */
export async function runSignalCommand(o: SignalCommandOptions): Promise<number> {
	const {signal, label} = resolveAction(o.action, o.settings);
	const say = (line: string) => o.stderr.write(`${line}\n`);
	if (o.settings.readonly) {
		say(`traintop: --readonly: no signal is sent (${label} refused)`);
		return EXIT.actionRefused;
	}
	const set = await scanRanks(o.settings, o.selector);
	const {targets, unknown} = selectTargets(set, o.ranks);
	if (unknown.length > 0) {
		const known =
			set.ranks
				.map(r => r.rank)
				.filter(n => n !== null)
				.join(', ') || 'none';
		throw new UsageError(`--rank ${unknown.join(',')}: no such rank ${describeSelector(o.selector)} (found: ${known})`);
	}
	if (targets.length === 0) {
		say(`traintop: no ranks found ${describeSelector(o.selector)}; nothing sent`);
		if (o.json) o.stdout.write(`${JSON.stringify({signal, results: []})}\n`);
		return EXIT.actionRefused;
	}

	say(`${label} to ${targets.length} of ${set.ranks.length} rank${set.ranks.length === 1 ? '' : 's'}:`);
	for (const target of targets) say(`  ${previewLine(target, signal, o.force)}`);
	if (!o.yes) {
		if (!o.interactive) {
			throw new UsageError(
				`signal: no terminal to confirm on; add --yes to send ${signal} to ${targets.length} rank(s)`,
			);
		}
		if (!(await confirm(`Send ${signal}? [y/N] `, o.stdin, o.stderr))) {
			say('cancelled: nothing sent');
			return EXIT.actionRefused;
		}
	}

	// Watch before sending, so a checkpoint that already existed can never be taken for the new one.
	const watcher = o.wait ? await startWatcher(o, set.ranks[0]!) : null;
	try {
		const sentAt = Date.now();
		const {results} = sendSignal({rankSet: set, ranks: o.ranks, signal, force: o.force, proc: procReader()});
		if (!o.json) for (const result of results) o.stdout.write(`${outcomeLine(result)}\n`);
		let waited: {checkpoint: Checkpoint | null; seconds: number} | null = null;
		if (watcher && results.some(r => r.outcome === 'sent')) {
			if (!o.json) say(`waiting up to ${o.settings.timeout} s for a new checkpoint in ${watcher.runDir}…`);
			const checkpoint = await watcher.watcher.awaitNewCheckpoint(sentAt, o.settings.timeout * 1000);
			waited = {checkpoint, seconds: (Date.now() - sentAt) / 1000};
			if (!o.json) o.stdout.write(`${waitLine(checkpoint, waited.seconds, watcher.runDir, o.settings.timeout)}\n`);
		}
		if (o.json) {
			const checkpoint = waited && {
				saved: waited.checkpoint !== null,
				name: waited.checkpoint?.name ?? null,
				path: waited.checkpoint?.path ?? null,
				step: waited.checkpoint?.step ?? null,
				kind: waited.checkpoint?.kind ?? null,
				seconds: Math.round(waited.seconds * 10) / 10,
			};
			o.stdout.write(`${JSON.stringify({signal, results, ...(waited ? {checkpoint} : {})}, null, 2)}\n`);
		}
		const allSent = results.every(r => r.outcome === 'sent');
		return allSent && (!waited || waited.checkpoint !== null) ? EXIT.ok : EXIT.actionRefused;
	} finally {
		await watcher?.watcher.stop();
	}
}

function waitLine(checkpoint: Checkpoint | null, seconds: number, runDir: string, timeout: number): string {
	if (!checkpoint) return `no new checkpoint in ${runDir} within ${timeout} s`;
	const step = checkpoint.step === null ? '' : ` (step ${checkpoint.step}, ${checkpoint.kind})`;
	return `saved ${checkpoint.name}${step} in ${seconds.toFixed(1)} s`;
}

/** The run dir to watch: the one given, else where rank 0 runs (relative checkpoint paths start there). */
async function startWatcher(
	o: SignalCommandOptions,
	rank0: RankProcess,
): Promise<{watcher: CheckpointWatcher; runDir: string}> {
	const runDir = o.runDir ? existingRunDir(o.runDir) : procReader().cwd(rank0.pid);
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

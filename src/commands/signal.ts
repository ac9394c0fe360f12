import {createInterface} from 'node:readline/promises';
import type {Readable, Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import {describeSelector} from '../config/selection.js';
import {EXIT, UsageError} from '../core/errors.js';
import type {RankProcess} from '../core/types.js';
import {wouldTerminate} from '../ranks/dispositions.js';
import {selectTargets, sendSignal, type SendResult} from '../ranks/send.js';
import {parseSignalName, type SignalName} from '../ranks/signals.js';
import type {RankSelector} from '../ranks/tree.js';
import {procReader} from '../system/procfs.js';
import {scanRanks} from './ranks.js';

/** `save` and `emergency` name the configured signals; anything else must be a signal name. */
export function resolveAction(action: string | undefined, settings: Settings): {signal: SignalName; label: string} {
	if (action === undefined) throw new UsageError('signal needs what to send: save, emergency or a signal name (e.g. SIGUSR2)');
	if (action === 'save') return {signal: settings.saveSignal, label: `${settings.saveSignal} (save)`};
	if (action === 'emergency') return {signal: settings.emergencySignal, label: `${settings.emergencySignal} (emergency checkpoint)`};
	const signal = parseSignalName(action);
	if (!signal) throw new UsageError(`unknown signal '${action}': use save, emergency or a signal name such as SIGUSR2, USR2 or 12`);
	return {signal, label: signal};
}

function who(rank: RankProcess): string {
	return `${rank.rank === null ? 'rank ?' : `rank ${rank.rank}`}  pid ${rank.pid}`;
}

/** What each target will do with the signal, from its state at the last scan (it is re-read before sending). */
export function previewLine(rank: RankProcess, signal: SignalName, force: boolean): string {
	const state = rank.signals[signal];
	if (!state) return `${who(rank)}  (state of ${signal} not shown by traintop; checked before sending)`;
	if (wouldTerminate(state)) {
		return `${who(rank)}  NO HANDLER: ${signal} would terminate it — ${force ? 'sent anyway (--force)' : 'will be refused (--force sends it)'}`;
	}
	const notes = [state.disposition === 'ignored' ? `ignores ${signal}` : `handles ${signal}`];
	if (state.blocked) notes.push('blocked: delivered when unblocked');
	if (state.pending) notes.push(`a ${signal} is already pending`);
	return `${who(rank)}  ${notes.join(', ')}`;
}

function resultLine(result: SendResult): string {
	const rank = result.rank === null ? 'rank ?' : `rank ${result.rank}`;
	return `${rank}  pid ${result.pid}  ${result.outcome}${result.reason ? `: ${result.reason}` : ''}`;
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
		const known = set.ranks.map(r => r.rank).filter(n => n !== null).join(', ') || 'none';
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
			throw new UsageError(`signal: no terminal to confirm on; add --yes to send ${signal} to ${targets.length} rank(s)`);
		}
		if (!(await confirm(`Send ${signal}? [y/N] `, o.stdin, o.stderr))) {
			say('cancelled: nothing sent');
			return EXIT.actionRefused;
		}
	}

	const {results} = await sendSignal({
		rankSet: set,
		ranks: o.ranks,
		signal,
		force: o.force,
		proc: procReader(),
	});
	if (o.json) o.stdout.write(`${JSON.stringify({signal, results}, null, 2)}\n`);
	else for (const result of results) o.stdout.write(`${resultLine(result)}\n`);
	return results.every(r => r.outcome === 'sent') ? EXIT.ok : EXIT.actionRefused;
}

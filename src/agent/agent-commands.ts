import {constants} from 'node:os';
import type {Job, RankProcess, Snapshot} from '../core/types.js';
import type {SendResult} from '../ranks/send.js';
import type {SignalName} from '../ranks/signals.js';
import {answerDetail, type DetailContext} from './detail-command.js';
import {
	type DetailMessage,
	type ErrorMessage,
	parseAgentCommand,
	type RankIdentity,
	type ReplyMessage,
	type SignalCommand,
} from './protocol.js';

// What an agent does with a signal command, on its own node. The command names one job and its ranks by identity
// (pid, start time) as the viewer saw them; only ranks that are still that job's ranks here, with that identity,
// become targets, and the send goes through the session's one guarded sender (ranks/send.ts: identity re-read
// right before kill, ownership, never a rank without a handler: never forced). Nothing here widens a command.
// A detail command (detail-command.ts) only reads, for one rank of the latest scan.

export interface CommandContext extends DetailContext {
	/** This agent's host: a command for another is not ours (through srun every agent reads every command). */
	readonly host: string;
	/** --readonly: every signal is refused (a detail, which only reads, is not). */
	readonly readonly: boolean;
	/** The latest snapshot: its rank scan says which ranks each job has. */
	readonly latest: () => Pick<Snapshot, 'ranks'> | null;
	/** The session's sender (actions.send): these pids of this job, every guard applied; `expect` the save asked. */
	readonly send: (
		signal: SignalName,
		job: Job,
		pids: readonly number[],
		expect: 'manual' | 'emergency' | null,
	) => Promise<readonly SendResult[]>;
}

/** Only names written as this platform's signals are (`SIGUSR1`); the viewer resolves `save`, `USR1` or `10`. */
function isSignalName(name: string): name is SignalName {
	return Object.hasOwn(constants.signals, name);
}

/** Why a rank named by the command is not a target, in the sender's words (`gone`: nothing is sent to it). */
function notATarget(identity: RankIdentity, job: Job, host: string): SendResult {
	const samePid = job.ranks.find(rank => rank.pid === identity.pid);
	const reason = samePid
		? `pid ${identity.pid} is no longer rank ${samePid.rank ?? '?'} as named (start time ${identity.start_time}, now ${samePid.startTime}): that process exited and the pid was reused`
		: `pid ${identity.pid} is not a rank of job ${job.id} on ${host} (at its last rank scan)`;
	return {rank: samePid?.rank ?? null, pid: identity.pid, outcome: 'gone', reason};
}

/**
 * The reply to a command, or null when the command is for another host (ignored without a word). A command that
 * cannot be carried out at all is refused as a whole (`refused` says why, no results); otherwise every named rank
 * gets a result, in the command's order.
 */
async function answerCommand(command: SignalCommand, context: CommandContext): Promise<ReplyMessage | null> {
	const {host} = context;
	if (command.host !== host) return null;
	const reply = (results: readonly SendResult[], refused: string | null): ReplyMessage => ({
		kind: 'reply',
		host,
		id: command.id,
		results,
		refused,
	});
	if (context.readonly) return reply([], `the agent on ${host} runs with --readonly: no signal is sent`);
	if (!isSignalName(command.signal))
		return reply([], `${command.signal} is not a signal on ${host} (signal names as in kill -l, e.g. SIGUSR1)`);
	if (command.ranks.length === 0)
		return reply([], 'the command names no ranks: an agent never widens a command to every rank');
	const ranks = context.latest()?.ranks;
	if (!ranks) return reply([], `no rank scan yet on ${host}: nothing is known to signal`);
	const job = ranks.jobs.find(candidate => candidate.id === command.job);
	if (!job) {
		const here = ranks.jobs.map(j => j.id).join(', ') || 'none';
		return reply([], `no job ${command.job} on ${host} (jobs here: ${here})`);
	}

	const named = uniqueIdentities(command.ranks);
	const isTarget = (identity: RankIdentity) =>
		job.ranks.some((rank: RankProcess) => rank.pid === identity.pid && rank.startTime === identity.start_time);
	const targets = named.filter(isTarget).map(identity => identity.pid);
	const sent = targets.length > 0 ? await context.send(command.signal, job, targets, command.expect ?? null) : [];
	const byPid = new Map(sent.map(result => [result.pid, result]));
	const result = (identity: RankIdentity) =>
		(isTarget(identity) ? byPid.get(identity.pid) : undefined) ?? notATarget(identity, job, host);
	return reply(named.map(result), null);
}

/** A rank named twice is one target, signalled once. */
function uniqueIdentities(ranks: readonly RankIdentity[]): RankIdentity[] {
	const seen = new Set<string>();
	return ranks.filter(identity => {
		const key = `${identity.pid}:${identity.start_time}`;
		if (seen.has(key)) return false;
		seen.add(key);
		return true;
	});
}

/** A line that is not a command but names another host: not ours to complain about (every agent reads it). */
function addressedElsewhere(line: string, host: string): boolean {
	try {
		const value = JSON.parse(line) as unknown;
		return typeof value === 'object' && value !== null && 'host' in value && typeof value.host === 'string'
			? value.host !== host
			: false;
	} catch {
		return false;
	}
}

/**
 * The agent's stdin, a line at a time: a command for this host is answered, one for another is ignored, and a line
 * that is not a command is answered with an error naming its line number (skipped, counted, never fatal).
 */
export class CommandLines {
	readonly #context: CommandContext;
	#lineNumber = 0;
	#skipped = 0;

	constructor(context: CommandContext) {
		this.#context = context;
	}

	/** Lines skipped so far (not commands). */
	get skipped(): number {
		return this.#skipped;
	}

	/** The message that answers one line, or null when none is due (a blank line, another host's command). */
	async answer(line: string): Promise<ReplyMessage | DetailMessage | ErrorMessage | null> {
		this.#lineNumber += 1;
		if (line.trim() === '') return null;
		const parsed = parseAgentCommand(line);
		if (parsed.ok)
			return parsed.value.kind === 'detail'
				? await answerDetail(parsed.value, this.#context)
				: await answerCommand(parsed.value, this.#context);
		const {host} = this.#context;
		if (addressedElsewhere(line, host)) return null;
		this.#skipped += 1;
		return {
			kind: 'error',
			host,
			message: `stdin line ${this.#lineNumber} skipped (${this.#skipped} so far): ${parsed.error}`,
		};
	}
}

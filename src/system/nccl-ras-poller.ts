import type {NcclRasState} from '../core/progress-types.js';
import {exchangeNcclRas, type NcclRasCommand, type NcclRasReply} from './nccl-ras-client.js';
import {ncclRasChanges} from './nccl-ras-diff.js';
import {type NcclRasAnswer, parseNcclRasAnswer} from './nccl-ras-parse.js';

// Asks NCCL's RAS service for its status now and then, never depending on it: while nothing answers, one connection
// attempt a minute at the most (attempts are counted start to start, and one attempt is one connect, never
// retried); while it answers, every 15 s, each answer compared with the previous one. One exchange at a time; its
// timers are unref'd, so a poller never keeps traintop running, and stop() ends the exchange in flight, socket too.

export type NcclRasExchange = (address: string, command: NcclRasCommand, signal: AbortSignal) => Promise<NcclRasReply>;

export interface NcclRasPollerOptions {
	/** HOST:PORT of the service (the `--nccl-ras` setting; 127.0.0.1:28028 by default). */
	readonly address: string;
	readonly now?: () => number;
	/** Between asks while it answers; 15 s. */
	readonly presentEveryMs?: number;
	/** Between connection attempts while nothing answers; 60 s. */
	readonly absentEveryMs?: number;
	/** `VERBOSE STATUS` (NCCL lists more of the ranks behind an error) rather than `STATUS`. */
	readonly verbose?: boolean;
	/** The exchange; tests give their own. */
	readonly exchange?: NcclRasExchange;
	/** Calls `fire` after `ms` and returns its cancel; tests drive a clock of their own with it. */
	readonly after?: (ms: number, fire: () => void) => () => void;
}

const PRESENT_EVERY_MS = 15_000;
const ABSENT_EVERY_MS = 60_000;

function realAfter(ms: number, fire: () => void): () => void {
	const timer = setTimeout(fire, ms);
	timer.unref();
	return () => clearTimeout(timer);
}

const realExchange: NcclRasExchange = (address, command, signal) => exchangeNcclRas(address, command, {signal});

/** Two states alike but for when they were read: listeners hear only of the ones that differ. */
function sameState(a: NcclRasState | null, b: NcclRasState): boolean {
	if (a === null || a.status !== b.status) return false;
	const {readAt: _a, ...restA} = a;
	const {readAt: _b, ...restB} = b;
	return JSON.stringify(restA) === JSON.stringify(restB);
}

export class NcclRasPoller {
	readonly #address: string;
	readonly #now: () => number;
	readonly #presentEveryMs: number;
	readonly #absentEveryMs: number;
	readonly #command: NcclRasCommand;
	readonly #exchange: NcclRasExchange;
	readonly #after: (ms: number, fire: () => void) => () => void;
	readonly #listeners: ((state: NcclRasState) => void)[] = [];
	#state: NcclRasState | null = null;
	/** The previous answer read, when the previous ask was answered: what `changes` compares with. */
	#previous: NcclRasAnswer | null = null;
	#cancelTimer: (() => void) | null = null;
	#inFlight: AbortController | null = null;
	#running = false;

	constructor(options: NcclRasPollerOptions) {
		this.#address = options.address;
		this.#now = options.now ?? Date.now;
		this.#presentEveryMs = options.presentEveryMs ?? PRESENT_EVERY_MS;
		this.#absentEveryMs = options.absentEveryMs ?? ABSENT_EVERY_MS;
		this.#command = options.verbose ? 'VERBOSE STATUS' : 'STATUS';
		this.#exchange = options.exchange ?? realExchange;
		this.#after = options.after ?? realAfter;
	}

	/** Asks at once, then on its own schedule. A second start() does nothing. */
	start(): void {
		if (this.#running) return;
		this.#running = true;
		void this.#ask();
	}

	/** Stops asking: the next ask is cancelled and an exchange in flight ends, its socket closed. */
	stop(): void {
		this.#running = false;
		this.#cancelTimer?.();
		this.#cancelTimer = null;
		this.#inFlight?.abort();
		this.#inFlight = null;
	}

	/** The latest state; null before the first ask ended. */
	current(): NcclRasState | null {
		return this.#state;
	}

	/** `listener` hears each new state that differs from the previous one in more than when it was read. */
	onChange(listener: (state: NcclRasState) => void): void {
		this.#listeners.push(listener);
	}

	async #ask(): Promise<void> {
		const startedAt = this.#now();
		const abort = new AbortController();
		this.#inFlight = abort;
		const reply = await this.#exchange(this.#address, this.#command, abort.signal).catch(
			(error: unknown): NcclRasReply => ({ok: false, reason: String(error), listening: false}),
		);
		if (!this.#running || abort.signal.aborted) return;
		this.#inFlight = null;
		const state = this.#stateOf(reply);
		const changed = !sameState(this.#state, state);
		this.#state = state;
		// Start to start: a slow answer or a slow refusal never shortens the pause before the next attempt. Set before
		// the listeners hear of it, so that one of them stopping the poller (or failing) leaves no ask behind or lost.
		const everyMs = state.status === 'ok' ? this.#presentEveryMs : this.#absentEveryMs;
		const waitMs = Math.max(0, startedAt + everyMs - this.#now());
		this.#cancelTimer = this.#after(waitMs, () => {
			this.#cancelTimer = null;
			if (this.#running) void this.#ask();
		});
		if (changed) for (const listener of this.#listeners) listener(state);
	}

	#stateOf(reply: NcclRasReply): NcclRasState {
		const readAt = this.#now();
		if (!reply.ok) {
			this.#previous = null;
			return {status: 'absent', readAt, reason: reply.reason};
		}
		const parsed = parseNcclRasAnswer(reply.text);
		if (parsed.answer === null) {
			// Something answers, but not what traintop can read: asked as seldom as when nothing answers.
			this.#previous = null;
			return {status: 'absent', readAt, reason: `${this.#address} answered, unreadably: ${parsed.problem}`};
		}
		const answer = parsed.answer;
		const changes = this.#previous === null ? [] : ncclRasChanges(this.#previous, answer);
		this.#previous = answer;
		return {status: 'ok', readAt, ...answer, changes};
	}
}

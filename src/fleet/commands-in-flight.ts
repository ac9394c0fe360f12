import type {DetailCommand, DetailMessage, ReplyMessage, SignalCommand} from '../agent/protocol.js';

// The commands sent to agents that wait for their answer, by id: the answer that carries the id resolves it, a
// bound ends the wait. An agent that never answers (hung, an older traintop that does not know the command, a line
// lost with its connection) costs the asker that bound, never more, and nothing else waits on it.

/** A command as its sender writes it: the id and the host are filled in when it is sent. */
export type CommandBody = Omit<SignalCommand, 'id' | 'host'> | Omit<DetailCommand, 'id' | 'host'>;

/** Each command's answer: a signal's reply, a detail's detail. */
interface Answers {
	readonly signal: ReplyMessage;
	readonly detail: DetailMessage;
}
const ANSWER_KIND = {signal: 'reply', detail: 'detail'} as const satisfies {
	readonly [K in keyof Answers]: Answers[K]['kind'];
};

/** A message that answers one command. */
export type Answer = Answers[keyof Answers];
export type AnswerTo<C extends CommandBody> = Answers[C['kind']];

export type Asked<T extends Answer> =
	| {readonly kind: 'answered'; readonly answer: T}
	| {readonly kind: 'unreachable'; readonly why: string};

interface Waiting {
	readonly kind: Answer['kind'];
	readonly resolve: (asked: Asked<Answer>) => void;
	readonly timer: NodeJS.Timeout;
}

export class CommandsInFlight {
	readonly #waiting = new Map<string, Waiting>();
	#count = 0;

	/**
	 * Writes `command` under a new id (`write` says whether it could) and resolves with its answer, the message of the
	 * command's answer kind that carries that id; unreachable when it could not be written or nothing answered within
	 * `timeoutMs` (the why names no node: the caller does).
	 */
	ask<C extends CommandBody>(
		command: C,
		timeoutMs: number,
		write: (id: string) => boolean,
	): Promise<Asked<AnswerTo<C>>> {
		this.#count += 1;
		const id = `c${this.#count}`;
		return new Promise(resolve => {
			const timer = setTimeout(() => this.#end(id, `its agent did not answer in ${timeoutMs / 1000} s`), timeoutMs);
			const kind = ANSWER_KIND[command.kind];
			this.#waiting.set(id, {kind, resolve: resolve as (asked: Asked<Answer>) => void, timer});
			if (!write(id)) this.#end(id, 'its connection is closing');
		});
	}

	/** An answer read from an agent: resolves the command it names, if that still waits for this kind of answer. */
	answered(message: Answer): void {
		const waiting = this.#waiting.get(message.id);
		if (!waiting || waiting.kind !== message.kind) return;
		clearTimeout(waiting.timer);
		this.#waiting.delete(message.id);
		waiting.resolve({kind: 'answered', answer: message});
	}

	/** Every command still waiting is unreachable, for `why` (traintop is closing). */
	abandon(why: string): void {
		for (const id of [...this.#waiting.keys()]) this.#end(id, why);
	}

	#end(id: string, why: string): void {
		const waiting = this.#waiting.get(id);
		if (!waiting) return;
		clearTimeout(waiting.timer);
		this.#waiting.delete(id);
		waiting.resolve({kind: 'unreachable', why});
	}
}

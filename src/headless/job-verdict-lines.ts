import type {Snapshot} from '../core/types.js';
import {printable} from '../format/printable.js';
import {localTime} from '../format/time.js';
import type {Print} from './print.js';

// A per-job verdict in the headless view (preemption readiness, progress): a line on stderr, and with --json an object
// on stdout (`{"event":NAME,…}`), when a job's verdict is first known and each time what it rests on changes — as
// `keyOf` says: not as its seconds move. The Monitor keeps the same array while nothing in it changed.

export interface VerdictWords<T> {
	/** The event's name in the JSON and the line's word: `readiness`, `progress`. */
	readonly event: string;
	/** The verdicts of a snapshot; undefined from an older agent. */
	readonly of: (snapshot: Snapshot) => readonly T[] | undefined;
	/** What a change is. */
	readonly keyOf: (verdict: T) => string;
	readonly text: (verdict: T, now: number) => string;
	readonly json: (verdict: T, now: number) => Record<string, unknown>;
}

export class JobVerdictLines<T extends {readonly job: string}> {
	readonly #print: Print;
	readonly #host: string | null;
	readonly #words: VerdictWords<T>;
	#last: readonly T[] | undefined;
	readonly #keys = new Map<string, string>();

	/** `host`: the node's name when there are many (each line and object names it); null for the one node. */
	constructor(print: Print, host: string | null, words: VerdictWords<T>) {
		this.#print = print;
		this.#host = host;
		this.#words = words;
	}

	update(snapshot: Snapshot): void {
		const all = this.#words.of(snapshot);
		if (all === undefined || all === this.#last) return;
		this.#last = all;
		const prefix = this.#host === null ? '' : `${this.#host} `;
		for (const verdict of all) {
			const key = this.#words.keyOf(verdict);
			if (this.#keys.get(verdict.job) === key) continue;
			this.#keys.set(verdict.job, key);
			const line = `${this.#words.event} ${printable(verdict.job)}: ${this.#words.text(verdict, snapshot.time)}`;
			this.#print.note(`${localTime(snapshot.time)} ${prefix}${line}`);
			this.#print.record(verdictRecord(this.#words, verdict, snapshot.time, this.#host));
		}
		// A job that ended is forgotten: a new one under the same id says its verdict again.
		const live = new Set(all.map(verdict => verdict.job));
		for (const job of this.#keys.keys()) if (!live.has(job)) this.#keys.delete(job);
	}
}

/** The `{"event":NAME,…}` object of one job's verdict at `time`; `host` where there are many nodes (or a notice). */
export function verdictRecord<T extends {readonly job: string}>(
	words: VerdictWords<T>,
	verdict: T,
	time: number,
	host: string | null,
): Record<string, unknown> {
	return {
		event: words.event,
		time: new Date(time).toISOString(),
		job: verdict.job,
		...(host === null ? {} : {host}),
		...words.json(verdict, time),
	};
}

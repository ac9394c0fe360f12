import type {Readiness} from '../core/readiness-types.js';
import type {Snapshot} from '../core/types.js';
import {printable} from '../format/printable.js';
import {readinessText} from '../format/readiness.js';
import {readinessJson} from '../format/readiness-json.js';
import {localTime} from '../format/time.js';
import type {Print} from './print.js';

// Each job's preemption readiness in the headless view: a line on stderr (and with --json an object on stdout,
// `{"event":"readiness",…}`) when a job's verdict is first known and each time it or what it rests on changes (its
// signal, its reasons' codes: the scheduler's deadline read, a save seen), not as its figures move.

/** What a change is: the verdict, the signal and which reasons make it, not their seconds. */
const keyOf = (r: Readiness): string => `${r.verdict} ${r.signal} ${r.reasons.map(reason => reason.code).join(',')}`;

export class ReadinessLines {
	readonly #print: Print;
	readonly #prefix: string;
	readonly #host: string | null;
	#last: readonly Readiness[] | undefined;
	readonly #verdicts = new Map<string, string>();

	/** `host`: the node's name when there are many (each line and object names it); null for the one node. */
	constructor(print: Print, host: string | null) {
		this.#print = print;
		this.#host = host;
		this.#prefix = host === null ? '' : `${host} `;
	}

	update(snapshot: Snapshot): void {
		const all = snapshot.readiness;
		// The Monitor keeps the same array while nothing in it changed.
		if (all === undefined || all === this.#last) return;
		this.#last = all;
		for (const r of all) {
			const key = keyOf(r);
			if (this.#verdicts.get(r.job) === key) continue;
			this.#verdicts.set(r.job, key);
			const job = printable(r.job);
			this.#print.note(
				`${localTime(snapshot.time)} ${this.#prefix}readiness ${job}: ${readinessText(r, snapshot.time)}`,
			);
			this.#print.record({
				event: 'readiness',
				time: new Date(snapshot.time).toISOString(),
				job: r.job,
				...(this.#host === null ? {} : {host: this.#host}),
				...readinessJson(r, snapshot.time),
			});
		}
		// A job that ended is forgotten: a new one under the same id says its verdict again.
		const live = new Set(all.map(r => r.job));
		for (const job of this.#verdicts.keys()) if (!live.has(job)) this.#verdicts.delete(job);
	}
}

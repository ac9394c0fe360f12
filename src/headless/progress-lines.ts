import type {JobProgress} from '../core/progress-types.js';
import type {Snapshot} from '../core/types.js';
import {printable} from '../format/printable.js';
import {progressText} from '../format/progress.js';
import {progressJson} from '../format/progress-json.js';
import {localTime} from '../format/time.js';
import type {Print} from './print.js';

// Each job's progress in the headless view: a line on stderr (and with --json `{"event":"progress",…}` on stdout)
// when a job's verdict is first known and each time it changes, or the processes that stand out change (another odd
// rank, a rank that went from sleeping to gone) — not as its seconds move.

const keyOf = (p: JobProgress): string =>
	`${p.verdict} ${p.odd.map(o => `${o.pid}:${o.activity}:${o.wchan}`).join(',')} ${p.waiting.map(w => `${w.pids.join('+')}:${w.activity}`).join(',')}`;

export class ProgressLines {
	readonly #print: Print;
	readonly #prefix: string;
	readonly #host: string | null;
	#last: readonly JobProgress[] | undefined;
	readonly #keys = new Map<string, string>();

	/** `host`: the node's name when there are many (each line and object names it); null for the one node. */
	constructor(print: Print, host: string | null) {
		this.#print = print;
		this.#host = host;
		this.#prefix = host === null ? '' : `${host} `;
	}

	update(snapshot: Snapshot): void {
		const all = snapshot.progress;
		// The Monitor keeps the same array between rank scans.
		if (all === undefined || all === this.#last) return;
		this.#last = all;
		for (const p of all) {
			const key = keyOf(p);
			if (this.#keys.get(p.job) === key) continue;
			this.#keys.set(p.job, key);
			this.#print.note(
				`${localTime(snapshot.time)} ${this.#prefix}progress ${printable(p.job)}: ${progressText(p, snapshot.time)}`,
			);
			this.#print.record({
				event: 'progress',
				time: new Date(snapshot.time).toISOString(),
				job: p.job,
				...(this.#host === null ? {} : {host: this.#host}),
				...progressJson(p, snapshot.time),
			});
		}
		const live = new Set(all.map(p => p.job));
		for (const job of this.#keys.keys()) if (!live.has(job)) this.#keys.delete(job);
	}
}

import type {HostConsumers} from '../core/memory-types.js';
import type {Snapshot} from '../core/types.js';
import {hostConsumersJson, hostConsumersLine} from '../format/host-consumers.js';
import {localTime} from '../format/time.js';
import type {Print} from './print.js';

// The host's top consumers in the headless view, while the host is short of RAM: a line on stderr (and with --json
// `{"event":"host_consumers",…}`) when the largest one changes (another process, or the list's first read this
// time short), not at every re-read of the same list (every 10 s while short).

export class HostConsumersLines {
	readonly #print: Print;
	readonly #prefix: string;
	readonly #host: string | null;
	#seen: HostConsumers | null = null;
	/** The largest consumer last printed (-1: an empty list); null while the host is not short. */
	#lastTop: number | null = null;

	constructor(print: Print, host: string | null) {
		this.#print = print;
		this.#host = host;
		this.#prefix = host === null ? '' : `${host} `;
	}

	update(snapshot: Snapshot): void {
		const consumers = snapshot.hostConsumers ?? null;
		if (consumers === this.#seen) return;
		this.#seen = consumers;
		if (consumers === null) {
			this.#lastTop = null;
			return;
		}
		const top = consumers.top[0]?.pid ?? -1;
		if (top === this.#lastTop) return;
		this.#lastTop = top;
		this.#print.note(`${localTime(snapshot.time)} ${this.#prefix}${hostConsumersLine(consumers)}`);
		this.#print.record({
			event: 'host_consumers',
			time: new Date(snapshot.time).toISOString(),
			...(this.#host === null ? {} : {host: this.#host}),
			...hostConsumersJson(consumers),
		});
	}
}

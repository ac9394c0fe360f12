import type {NcclRasState} from '../core/progress-types.js';
import type {Snapshot} from '../core/types.js';
import {ncclRasJson, ncclRasLines} from '../format/nccl-ras.js';
import {localTime} from '../format/time.js';
import type {Print} from './print.js';

// NCCL's RAS service in the headless view: its lines on stderr (and with --json `{"event":"nccl_ras",…}`) when it
// first answers and whenever what it says changes. Its absence prints nothing: most nodes run no NCCL ≥ 2.24 job.

/** What it says, without when it was read. */
const keyOf = (state: NcclRasState): string => JSON.stringify({...state, readAt: 0});

export class NcclRasLines {
	readonly #print: Print;
	readonly #prefix: string;
	readonly #host: string | null;
	#last = '';
	/** The poller's state last looked at: the same object until its next answer (15 s), so most ticks stop here. */
	#seen: NcclRasState | null = null;

	constructor(print: Print, host: string | null) {
		this.#print = print;
		this.#host = host;
		this.#prefix = host === null ? '' : `${host} `;
	}

	update(snapshot: Snapshot): void {
		const state = snapshot.ncclRas;
		if (state?.status !== 'ok' || state === this.#seen) return;
		this.#seen = state;
		const key = keyOf(state);
		if (key === this.#last) return;
		this.#last = key;
		for (const line of ncclRasLines(state, snapshot.time))
			this.#print.note(`${localTime(snapshot.time)} ${this.#prefix}${line}`);
		this.#print.record({
			event: 'nccl_ras',
			time: new Date(snapshot.time).toISOString(),
			...(this.#host === null ? {} : {host: this.#host}),
			...ncclRasJson(state),
		});
	}
}

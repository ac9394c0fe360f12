import type {GpuMemoryUnseen} from '../core/memory-types.js';
import type {Snapshot} from '../core/types.js';
import {gpuUnseenJson, gpuUnseenLines} from '../format/gpu-unseen.js';
import {localTime} from '../format/time.js';
import type {Print} from './print.js';

// GPU memory nobody can see, in the headless view: its lines on stderr (and with --json `{"event":"gpu_unseen",…}`)
// when what they say changes, and one line when it is all accounted for again. Nothing while there never was any.

export class GpuUnseenLines {
	readonly #print: Print;
	readonly #prefix: string;
	readonly #host: string | null;
	/** The reader's judgement last looked at: the same object until the next process table changes it. */
	#seen: GpuMemoryUnseen | null = null;
	#last: readonly string[] = [];

	constructor(print: Print, host: string | null) {
		this.#print = print;
		this.#host = host;
		this.#prefix = host === null ? '' : `${host} `;
	}

	update(snapshot: Snapshot): void {
		const unseen = snapshot.gpuUnseen ?? null;
		if (unseen === null || unseen === this.#seen) return;
		this.#seen = unseen;
		const lines = gpuUnseenLines(unseen);
		if (lines.join('\n') === this.#last.join('\n')) return;
		const at = `${localTime(snapshot.time)} ${this.#prefix}`;
		if (lines.length === 0) this.#print.note(`${at}GPU memory: nothing unseen any more`);
		for (const line of lines) this.#print.note(`${at}GPU memory: ${line}`);
		this.#last = lines;
		this.#print.record({
			event: 'gpu_unseen',
			time: new Date(snapshot.time).toISOString(),
			...(this.#host === null ? {} : {host: this.#host}),
			...gpuUnseenJson(unseen),
		});
	}
}

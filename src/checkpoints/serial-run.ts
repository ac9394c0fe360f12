// One run at a time of an async task (the watcher's rescans): a call while one runs shares a single follow-up that
// starts when the running one ends, so its result reflects the world after the call, however many calls arrive.

export class SerialRun<T> {
	readonly #task: () => Promise<T>;
	#running: Promise<T> | null = null;
	#queued: Promise<T> | null = null;

	constructor(task: () => Promise<T>) {
		this.#task = task;
	}

	/** The run in progress, or null. */
	get running(): Promise<T> | null {
		return this.#running;
	}

	run(): Promise<T> {
		if (this.#running === null) {
			this.#running = this.#task().finally(() => {
				this.#running = null;
			});
			return this.#running;
		}
		this.#queued ??= this.#running
			.catch(() => undefined)
			.then(() => {
				this.#queued = null;
				return this.run();
			});
		return this.#queued;
	}
}

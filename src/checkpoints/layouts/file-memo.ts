import type {Entry} from './layout.js';

/**
 * What a layout made of one file, remembered while the file stays the same (path, size, mtime): a rescan comes every
 * few seconds while a job writes, and reading a torch.save archive again gives the same answer. Bounded: the oldest
 * answer goes first. The answer is kept, not the file's pickle tree (megabytes for a large optimizer state).
 */
export class FileMemo<T> {
	readonly #limit: number;
	readonly #known = new Map<string, T>();

	constructor(limit: number) {
		this.#limit = limit;
	}

	async get(entry: Entry, read: () => Promise<T>): Promise<T> {
		const key = `${entry.path}\0${entry.size}\0${entry.mtimeMs}`;
		const known = this.#known.get(key);
		if (known !== undefined) return known;
		const value = await read();
		if (this.#known.size >= this.#limit) this.#known.delete(this.#known.keys().next().value ?? '');
		this.#known.set(key, value);
		return value;
	}
}

// Strings from bytes without decoding the same bytes again: the host and each GPU's uuid and name
// are the same on nearly every line of a memory log.

/** Remembers the last bytes → string per slot, so a host or GPU name repeated on every line is decoded once. */
export class Interner {
	readonly #bytes: (Uint8Array | null)[] = [];
	readonly #strings: string[] = [];

	get(buf: Uint8Array, start: number, end: number, slot: number): string {
		const last = this.#bytes[slot];
		const length = end - start;
		if (last?.length === length) {
			let same = true;
			for (let i = 0; i < length; i++) {
				if (last[i] !== buf[start + i]) {
					same = false;
					break;
				}
			}
			if (same) return this.#strings[slot]!;
		}
		// A copy: Buffer#slice would be a view that keeps the whole read chunk alive.
		const bytes = Uint8Array.prototype.slice.call(buf, start, end);
		const text = Buffer.from(bytes.buffer, bytes.byteOffset, length).toString('utf8');
		this.#bytes[slot] = bytes;
		this.#strings[slot] = text;
		return text;
	}
}

// Runs async work over a list with a cap on how much is in flight: a rescan of 1000 checkpoints that sized them all
// at once had ~100k lstat calls queued and peaked at half a GB (issue 17); 16 at a time keeps the disk busy enough.

/** `work` over `items`, at most `limit` at a time; the results in the order of `items`. */
export async function mapLimited<T, R>(
	items: readonly T[],
	limit: number,
	work: (item: T) => Promise<R>,
): Promise<R[]> {
	const results = new Array<R>(items.length);
	let next = 0;
	async function worker(): Promise<void> {
		while (next < items.length) {
			const index = next;
			next += 1;
			results[index] = await work(items[index] as T);
		}
	}
	await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker));
	return results;
}

/**
 * Polls `probe` until `ok` holds and returns that value; throws after `timeoutMs` with what was
 * awaited and the last value seen (a screen, a frame, a list of pids), so a failure shows its state.
 */
export async function until<T>(
	probe: () => T,
	ok: (value: T) => boolean,
	what: string,
	timeoutMs = 15_000,
	everyMs = 50,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = probe();
		if (ok(value)) return value;
		if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms; last seen:\n${String(value)}`);
		await new Promise(resolve => setTimeout(resolve, everyMs));
	}
}

import {until} from './until.js';

// Driving an Ink app rendered by ink-testing-library. Ink 6.8 re-subscribes useInput after every
// render, so a key written before React has re-rendered can reach a stale handler or none: wait a
// macrotask after each key, as a typing user does.

/** Lets Ink re-render and React re-subscribe useInput before the next key. */
export const flush = (): Promise<void> => new Promise(resolve => setImmediate(() => setTimeout(resolve, 0)));

/** Types each key, waiting after each one as a user would. */
export async function press(stdin: {write(data: string): void}, ...keys: string[]): Promise<void> {
	for (const key of keys) {
		stdin.write(key);
		await flush();
	}
}

/** The last frame, once `predicate` holds for it (data arrives asynchronously: poll, do not sleep). */
export function untilFrame(
	lastFrame: () => string | undefined,
	predicate: (frame: string) => boolean,
	timeoutMs = 10_000,
): Promise<string> {
	return until(() => lastFrame() ?? '', predicate, 'the frame to match', timeoutMs);
}

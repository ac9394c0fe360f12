import {until} from './until.js';

// Driving an Ink app rendered by ink-testing-library (see shared/reference/ink-notes.md §3).

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
export function untilFrame(lastFrame: () => string | undefined, predicate: (frame: string) => boolean, timeoutMs = 10_000): Promise<string> {
	return until(() => lastFrame() ?? '', predicate, 'the frame to match', timeoutMs);
}

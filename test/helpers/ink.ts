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

/**
 * Presses `key` until the frame shows its effect: for a key whose effect, once there, another press does not undo
 * (s opens a confirm box, where s means nothing). Under load the first press can reach a handler Ink is replacing.
 */
export async function pressUntil(
	stdin: {write(data: string): void},
	key: string,
	lastFrame: () => string | undefined,
	predicate: (frame: string) => boolean,
	timeoutMs = 10_000,
): Promise<string> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		await press(stdin, key);
		const left = deadline - Date.now();
		if (left <= 0)
			throw new Error(`the frame after ${JSON.stringify(key)}: not after ${timeoutMs} ms:\n${lastFrame()}`);
		try {
			return await untilFrame(lastFrame, predicate, Math.min(1000, left));
		} catch {
			// Not yet: press again.
		}
	}
}

/**
 * Presses `key` only while the frame is still `before` (the screen the key acts on), until it shows `after`: for a
 * key that means something else on the screen it leads to (Enter opens a node, then Enter on the node's view opens a
 * rank). A press lost under load is made again; one that landed is never followed by a second.
 */
export async function pressFrom(
	stdin: {write(data: string): void},
	key: string,
	lastFrame: () => string | undefined,
	before: (frame: string) => boolean,
	after: (frame: string) => boolean,
	timeoutMs = 20_000,
): Promise<string> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const frame = lastFrame() ?? '';
		if (after(frame)) return frame;
		const left = deadline - Date.now();
		if (left <= 0) throw new Error(`the frame after ${JSON.stringify(key)}: not after ${timeoutMs} ms:\n${frame}`);
		if (before(frame)) await press(stdin, key);
		try {
			return await untilFrame(lastFrame, after, Math.min(1000, left));
		} catch {
			// Not yet: press again if the key did not land.
		}
	}
}

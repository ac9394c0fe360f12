import type {Writable} from 'node:stream';

// Where a headless view's stdout goes, and when its view should stop. `traintop --headless --json | head` closes
// stdout: like any Unix filter, stop then (after the session writes its final record to the log), instead of
// monitoring for nobody. Any other write error only stops the writing.

export interface StdoutReader {
	/** False once a write failed: nothing more is written. */
	readonly open: () => boolean;
	/** Resolves when the reader went away (EPIPE) or `signal` aborts. */
	readonly stopped: Promise<void>;
	/** Stops listening for stdout's errors. */
	readonly off: () => void;
}

export function stdoutReader(stdout: Writable, signal: AbortSignal): StdoutReader {
	let open = true;
	let stop = () => {};
	const stopped = new Promise<void>(resolve => {
		stop = resolve;
		if (signal.aborted) resolve();
		else signal.addEventListener('abort', () => resolve(), {once: true});
	});
	const onError = (error: NodeJS.ErrnoException) => {
		open = false;
		if (error.code === 'EPIPE') stop();
	};
	stdout.on('error', onError);
	return {open: () => open, stopped, off: () => stdout.off('error', onError)};
}

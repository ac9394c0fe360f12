import React from 'react';
import {render} from 'ink';
import App, {type TuiActions, type TuiStore} from './app.js';

// Opens the TUI on the terminal and gives the terminal back as it was: the alternate screen is
// entered before the first frame and left on every way out — q, Ctrl-C, SIGTERM/SIGHUP (the
// caller aborts `signal`), a crash of the app (the error propagates after the screen is restored)
// and process exit.

const ENTER_ALTERNATE_SCREEN = '\u001B[?1049h\u001B[H';
const LEAVE_ALTERNATE_SCREEN = '\u001B[?1049l';
const CLEAR_SCREEN = '\u001B[2J\u001B[H';

export interface TuiOptions {
	readonly store: TuiStore;
	readonly actions: TuiActions;
	readonly readonly: boolean;
	readonly host: string;
	/** Aborted by SIGTERM/SIGHUP/SIGINT: the app closes as if q was pressed. */
	readonly signal: AbortSignal;
	readonly stdout?: NodeJS.WriteStream;
	readonly stdin?: NodeJS.ReadStream;
}

export async function runTui(options: TuiOptions): Promise<void> {
	const stdout = options.stdout ?? process.stdout;
	let restored = false;
	const restore = (): void => {
		if (restored) return;
		restored = true;
		stdout.write(LEAVE_ALTERNATE_SCREEN);
	};
	stdout.write(ENTER_ALTERNATE_SCREEN);
	process.on('exit', restore);
	const instance = render(<App store={options.store} actions={options.actions} readonly={options.readonly} host={options.host} />, {
		stdout,
		stdin: options.stdin ?? process.stdin,
		// Ctrl-C reaches the app's keymap: quit, or cancel an open confirm box.
		exitOnCtrlC: false,
		patchConsole: false,
	});
	// On a resize Ink first redraws the frame laid out for the old size; in a narrower terminal its
	// lines wrap, Ink's next erase counts too few, and pieces stayed at the top. This listener comes
	// after Ink's and before the app's own (registered in an effect, later): it clears the screen
	// between the two, so the app's frame for the new size is drawn on a clean alternate screen.
	const clearOnResize = (): void => {
		stdout.write(CLEAR_SCREEN);
	};
	stdout.on('resize', clearOnResize);
	const onAbort = (): void => instance.unmount();
	options.signal.addEventListener('abort', onAbort, {once: true});
	try {
		await instance.waitUntilExit();
	} finally {
		options.signal.removeEventListener('abort', onAbort);
		stdout.off('resize', clearOnResize);
		instance.unmount();
		restore();
		process.off('exit', restore);
	}
}

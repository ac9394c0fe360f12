import type React from 'react';
import {render} from 'ink';
import App from './app.js';
import {installInkRows} from './ink-rows.js';
import useSuspend, {CLEAR_SCREEN, type ScreenModes} from './hooks/use-suspend.js';
import type {TuiSession} from './tui-session.js';

// Opens the TUI on the terminal and gives the terminal back as it was: the alternate screen is
// entered before the first frame and left on every way out — q, Ctrl-C, SIGTERM/SIGHUP (the
// caller aborts `signal`), a crash of the app (the error propagates after the screen is restored)
// and process exit. It writes only to the terminal it is given. A terminal that went away (EIO,
// end of input) ends it like q, writing nothing more (system/dead-terminal.ts does the exit).

const ENTER_ALTERNATE_SCREEN = '\u001B[?1049h\u001B[H';
// The alternate screen is cleared before it is left. A terminal that reflows its lines on a resize (tmux) does
// so to the alternate screen too when it gives the shell's screen back at the size it was saved at: after a
// grow, the frame's rows wider than that were split, the surplus went into the shell's history, and the shell's
// screen, grown back, pulled them in above its own lines (a dozen lines of the charts stayed in the shell).
// Empty rows split into nothing.
const LEAVE_ALTERNATE_SCREEN = '\u001B[2J\u001B[H\u001B[?1049l';
const ALTERNATE_SCREEN: ScreenModes = {enter: ENTER_ALTERNATE_SCREEN, leave: LEAVE_ALTERNATE_SCREEN};
/**
 * Samples come at most ten a second (--interval ≥ 0.1 s), so ten frames a second draw every one; what comes
 * faster (a held key's repeats) is drawn together, the latest state last (Ink throttles, leading and trailing).
 */
const MAX_FPS = 10;

/** An app, and Ctrl-Z / `fg` leaving and taking the alternate screen with the rest of the terminal. */
function Suspendable({children}: {readonly children: React.ReactNode}) {
	useSuspend(ALTERNATE_SCREEN);
	return children;
}

export interface TerminalOptions {
	readonly stdout: NodeJS.WriteStream;
	readonly stdin: NodeJS.ReadStream;
	/** Aborted by SIGTERM/SIGHUP/SIGINT: the app closes as if q was pressed. */
	readonly signal: AbortSignal;
}

export function runTui(session: TuiSession, options: TerminalOptions): Promise<void> {
	return runOnTerminal(<App session={session} />, options, () => session.start());
}

/**
 * Any of traintop's screens (app.tsx: one node's view, or the list of nodes) on the terminal, until it exits or `signal`
 * aborts; `start` starts what feeds it, once its screen is up.
 */
export async function runOnTerminal(
	app: React.ReactElement,
	{stdout, stdin, signal}: TerminalOptions,
	start: () => void,
): Promise<void> {
	// Ink composes each frame's rows anew, cell by cell; this draws the rows it can as their text (ink-rows.ts).
	await installInkRows();
	let restored = false;
	// A terminal gone (hangup): nothing can be drawn or restored; its writes fail with EIO.
	let lost = false;
	const restore = (): void => {
		if (restored || lost) return;
		restored = true;
		stdout.write(LEAVE_ALTERNATE_SCREEN);
	};
	stdout.write(ENTER_ALTERNATE_SCREEN);
	process.on('exit', restore);
	const instance = render(<Suspendable>{app}</Suspendable>, {
		stdout,
		stdin,
		// Ctrl-C reaches the app's keymap: quit, or cancel an open confirm box.
		exitOnCtrlC: false,
		patchConsole: false,
		maxFps: MAX_FPS,
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
	signal.addEventListener('abort', onAbort, {once: true});
	// The terminal closed without a SIGHUP reaching us (the shell kept it): a failed write (EIO) or the end of the
	// keyboard's input says so. Quit as for q. The error listeners stay: Ink's own unmount still writes (the cursor).
	const onLost = (): void => {
		lost = true;
		instance.unmount();
	};
	stdout.on('error', onLost);
	stdin.on('error', onLost);
	stdin.once('end', onLost);
	start();
	try {
		await instance.waitUntilExit();
	} finally {
		signal.removeEventListener('abort', onAbort);
		stdout.off('resize', clearOnResize);
		stdin.off('end', onLost);
		instance.unmount();
		restore();
		process.off('exit', restore);
	}
}

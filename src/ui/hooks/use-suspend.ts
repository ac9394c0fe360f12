import {useStdin, useStdout} from 'ink';
import {useEffect} from 'react';

// Ctrl-Z and `fg` as in htop, vim or less. In raw mode the terminal sends no SIGTSTP for Ctrl-Z: the
// key comes in as input, and its effect raises the signal. The SIGTSTP handler gives the shell its
// terminal back (raw mode off, cursor shown, the TUI's screen left), then stops the process with the
// signal's default action; once continued it takes the terminal again and redraws the whole frame.

const SHOW_CURSOR = '\u001B[?25h';
const HIDE_CURSOR = '\u001B[?25l';
/** Clears the screen and homes the cursor: the full repaint here, and run-tui's clear on a resize. */
export const CLEAR_SCREEN = '\u001B[2J\u001B[H';

/** What the TUI sets on the terminal besides Ink's raw mode and hidden cursor: the escapes that set and undo it. */
export interface ScreenModes {
	readonly enter: string;
	readonly leave: string;
}

/** Mounted handlers: a process without one must not stop (its terminal would stay raw under the shell). */
let handlers = 0;

/**
 * The 'suspend' effect (Ctrl-Z): SIGTSTP to traintop's process group, as the terminal sends it outside raw mode,
 * so that a parent in the same job (`npm run demo`) stops too and the shell sees its job stopped. Nothing
 * without a mounted useSuspend (an App rendered by a test): nothing would give the terminal back first.
 */
export function suspendProcess(): void {
	if (handlers > 0) process.kill(0, 'SIGTSTP');
}

/**
 * Stops the process on SIGTSTP (Ctrl-Z's effect, or `kill -TSTP` from outside) with the terminal given back
 * as it was, and takes it again on SIGCONT (after `fg`, or after a SIGSTOP that gave no chance to leave).
 */
export default function useSuspend(modes: ScreenModes): void {
	const {stdin, isRawModeSupported} = useStdin();
	const {stdout, write} = useStdout();
	useEffect(() => {
		const rawMode = (on: boolean): void => {
			if (isRawModeSupported) stdin.setRawMode(on);
		};
		const resume = (): void => {
			// Off, then on: libuv does not set a mode it believes set, and the shell may have changed the
			// terminal under a process stopped in raw mode (SIGSTOP).
			rawMode(false);
			rawMode(true);
			stdout.write(modes.enter + HIDE_CURSOR);
			// Ink only writes what changed since its last frame, which the shell has drawn over: its write()
			// erases that frame, writes ours (a clear screen) and then the whole last frame again.
			write(CLEAR_SCREEN);
		};
		const stop = (): void => {
			rawMode(false);
			stdout.write(SHOW_CURSOR + modes.leave);
			// Without a handler the signal's default action stops the process, inside kill().
			process.off('SIGTSTP', stop);
			process.kill(process.pid, 'SIGTSTP');
			// Continued (or never stopped: the kernel drops SIGTSTP in an orphaned process group).
			process.on('SIGTSTP', stop);
			resume();
		};
		handlers++;
		process.on('SIGTSTP', stop);
		process.on('SIGCONT', resume);
		return () => {
			handlers--;
			process.off('SIGTSTP', stop);
			process.off('SIGCONT', resume);
		};
	}, [stdin, isRawModeSupported, stdout, write, modes]);
}

// A terminal that went away (its window closed, `tmux kill-session`, an ssh connection dropped) must end traintop
// quietly, never with a crash. Two things crashed it: a write to the hung-up terminal fails with EIO, which Node
// throws as an unhandled 'error' event; and at exit Node restores each standard stream that was a terminal at start
// (ResetStdio, tcsetattr) and aborts on an assertion when that fails (EIO), exit 134, even after a clean shutdown.

import {closeSync} from 'node:fs';
import {isatty} from 'node:tty';

const STANDARD_STREAMS = [0, 1, 2] as const;

/**
 * Call once at start, while the terminal is still there. From then on a write error on a stdout/stderr that is a
 * terminal is ignored (it can only mean the terminal is gone: nobody is left to read what was written), and at exit
 * each standard stream that was a terminal and is not any more is closed, so that Node's ResetStdio skips it.
 */
export function endQuietlyIfTerminalDies(): void {
	const wasTerminal = STANDARD_STREAMS.map(fd => isatty(fd));
	if (!wasTerminal.some(Boolean)) return;
	if (wasTerminal[1]) process.stdout.on('error', () => {});
	if (wasTerminal[2]) process.stderr.on('error', () => {});
	process.on('exit', () => {
		for (const fd of STANDARD_STREAMS) {
			// isatty() asks the terminal (TCGETS); a hung-up one answers EIO, so it says false.
			if (!wasTerminal[fd] || isatty(fd)) continue;
			try {
				closeSync(fd);
			} catch {
				// Already closed: nothing for ResetStdio to touch either.
			}
		}
	});
}

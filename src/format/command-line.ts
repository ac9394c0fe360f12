import {printable} from './printable.js';

// A process's command line shortened for a table row, where the script and its arguments matter
// and the interpreter's install path does not.

/** `/opt/conda/bin/python3 -u train.py` → `python3 -u train.py`, on one line (any run of blanks or newlines becomes one space). */
export function compactCommand(cmd: string): string {
	// Blanks first (a tab or newline is one space, as before), then what is left of another process's argv that a
	// terminal would obey (an ESC sequence) is shown escaped.
	return printable(
		cmd
			.replace(/^\S*\/(\S+)/, '$1')
			.replace(/\s+/g, ' ')
			.trim(),
	);
}

/** The longest a user's own command (`--notify-command`) is shown in a message. */
const USER_COMMAND_SHOWN = 80;

/** A command the user gave, as messages show it: control characters escaped, cut to 80 characters with `…`. */
export function userCommand(command: string): string {
	const text = printable(command);
	return text.length <= USER_COMMAND_SHOWN ? text : `${text.slice(0, USER_COMMAND_SHOWN - 1)}…`;
}

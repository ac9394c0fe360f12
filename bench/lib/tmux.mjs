// A private tmux server for a bench (its own socket: the user's sessions are never touched) in which each
// command gets its own session of a given size: a real terminal for the TUI, htop and glances.

import {execFileSync} from 'node:child_process';

export class TmuxServer {
	#socket;
	#sessions = 0;

	constructor(name) {
		this.#socket = `${name}-${process.pid}`;
	}

	tmux(...args) {
		return execFileSync('tmux', ['-L', this.#socket, ...args], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']});
	}

	/**
	 * Starts `command` (a shell line; `exec` it so the pane's process is the command itself) in a new
	 * `columns` × `rows` session; returns the session name and the pane's pid.
	 */
	start(columns, rows, command) {
		const session = `s${++this.#sessions}`;
		this.tmux('new-session', '-d', '-s', session, '-x', String(columns), '-y', String(rows), command);
		const pid = Number(this.tmux('list-panes', '-t', session, '-F', '#{pane_pid}').trim());
		return {session, pid};
	}

	keys(session, ...keys) {
		this.tmux('send-keys', '-t', session, ...keys);
	}

	screen(session) {
		return this.tmux('capture-pane', '-p', '-t', session);
	}

	/** Ends every session: their processes get SIGHUP. */
	close() {
		try {
			this.tmux('kill-server');
		} catch {
			// already gone
		}
	}
}

/** A shell word: 'it''s' quoting for the commands handed to tmux. */
export function shellQuote(word) {
	return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

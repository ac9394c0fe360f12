import {execFileSync} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import {until} from './until.js';

/**
 * A private tmux server (its own socket, so tests never touch the user's sessions) with one
 * session: a real terminal for the built CLI, read with capture-pane, typed into with send-keys.
 */
export class Terminal {
	readonly #socket = `traintop-test-${randomUUID()}`;
	readonly #session: string;

	/** Starts `command` (by default a plain bash) in a `columns` × `rows` terminal. */
	constructor(columns: number, rows: number, command?: string, session = 'term') {
		this.#session = session;
		const shell = 'env -i PATH="$PATH" HOME="$HOME" TERM=xterm-256color bash --norc --noprofile';
		this.tmux('new-session', '-d', '-s', session, '-x', String(columns), '-y', String(rows), command ?? shell);
	}

	tmux(...args: string[]): string {
		return execFileSync('tmux', ['-L', this.#socket, ...args], {encoding: 'utf8'});
	}

	/** The visible screen as text. */
	screen(): string {
		return this.tmux('capture-pane', '-p', '-t', this.#session);
	}

	keys(...keys: string[]): void {
		this.tmux('send-keys', '-t', this.#session, ...keys);
	}

	/** The pid of the pane's first process (the shell, or the command given). */
	panePid(): number {
		return Number(this.tmux('display-message', '-p', '-t', this.#session, '#{pane_pid}').trim());
	}

	/** The screen, once `predicate` holds for it. */
	until(predicate: (screen: string) => boolean, what = 'the screen to match', timeoutMs = 15_000): Promise<string> {
		return until(() => this.screen(), predicate, what, timeoutMs, 100);
	}

	/** Closes the terminal: its processes get SIGHUP. */
	close(): void {
		try {
			this.tmux('kill-server');
		} catch {
			// already gone
		}
	}
}

/**
 * The main TUI's frame is on screen down to its last pane: Ink redraws a frame top-down after erasing the old one, and
 * a capture can catch it halfway (the panes below blank). ALERTS is the pane drawn last, above the key bar.
 */
export function wholeFrame(screen: string): boolean {
	return /^ALERTS /m.test(screen);
}

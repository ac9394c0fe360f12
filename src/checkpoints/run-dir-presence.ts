// Whether the watched run dir is there, and whether it is still the same directory. A file watch follows the
// directory's inode, not its path: once the run dir is deleted (and made again: a job restarted from scratch), the
// watch sees nothing of the new one. A stat a second finds that out; CheckpointWatcher then watches the new dir, or
// waits for it as it does for a run dir not made yet.

import {constants} from 'node:fs';
import {access, stat} from 'node:fs/promises';

/** The last time the run dir was seen deleted or made again, in words for the event it becomes. */
export interface RunDirReplaced {
	readonly at: number;
	readonly text: string;
}

/**
 * `dev:ino:birth` of a directory, or null when the path is missing or not a directory. The birth time (ns) is
 * needed: ext4 and tmpfs give a directory made right after a deletion the inode number just freed. Where the file
 * system records no birth time (NFS) a dir made again with the same inode number goes unnoticed.
 */
const identityOf = (dir: string): Promise<string | null> =>
	stat(dir, {bigint: true}).then(
		s => (s.isDirectory() ? `${s.dev}:${s.ino}:${s.birthtimeNs}` : null),
		() => null,
	);

/** Whether `dir` is a directory now (false when it is missing or cannot be stat'ed). */
export function isDirectory(dir: string): Promise<boolean> {
	return stat(dir).then(
		s => s.isDirectory(),
		() => false,
	);
}

/** Why the user cannot list the run dir (`EACCES: permission denied`), or null when they can (or it is missing). */
export async function unreadable(dir: string): Promise<string | null> {
	try {
		await access(dir, constants.R_OK | constants.X_OK);
		return null;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		return code === 'ENOENT' || code === 'ENOTDIR' ? null : `${code}: permission denied`;
	}
}

export class RunDirPresence {
	readonly #runDir: string;
	readonly #now: () => number;
	/** The identity last attached to; null before the first attach. */
	#identity: string | null = null;
	#timer: NodeJS.Timeout | null = null;
	#stopped = false;
	replaced: RunDirReplaced | null = null;

	constructor(runDir: string, now: () => number) {
		this.#runDir = runDir;
		this.#now = now;
	}

	/**
	 * Calls `appeared` once the run dir is a directory (with `readable`, one the user can list), looking every
	 * `everyMs` (chokidar does not notice it appear, and nothing tells of a chmod).
	 */
	waitFor(everyMs: number, appeared: () => void, readable = false): void {
		this.#later(everyMs, async () => {
			const ready = readable ? (await unreadable(this.#runDir)) === null : (await identityOf(this.#runDir)) !== null;
			if (!ready) return this.waitFor(everyMs, appeared, readable);
			if (!this.#stopped) appeared();
		});
	}

	/** Notes the directory about to be watched; a different one than last time was made again. */
	async attaching(): Promise<void> {
		const identity = await identityOf(this.#runDir);
		if (this.#identity !== null && identity !== this.#identity)
			this.replaced = {
				at: this.#now(),
				text: `run dir ${this.#runDir} was deleted and made again: watching the new one`,
			};
		this.#identity = identity;
	}

	/** Checks every `everyMs` that the run dir is still the one attached to; calls `changed` once when it is not. */
	follow(everyMs: number, changed: (present: boolean) => void): void {
		this.#later(everyMs, async () => {
			const identity = await identityOf(this.#runDir);
			if (identity === this.#identity) return this.follow(everyMs, changed);
			if (identity === null)
				this.replaced = {at: this.#now(), text: `run dir ${this.#runDir} was deleted: waiting for it to be made again`};
			if (!this.#stopped) changed(identity !== null);
		});
	}

	stop(): void {
		this.#stopped = true;
		if (this.#timer !== null) clearTimeout(this.#timer);
		this.#timer = null;
	}

	#later(ms: number, run: () => Promise<void>): void {
		if (this.#stopped) return;
		this.#timer = setTimeout(() => {
			this.#timer = null;
			if (!this.#stopped) void run();
		}, ms);
	}
}

// What the watcher heard written in the run dir before its first scan ended. The first scan's checkpoints were there
// before traintop, and are not reported as saves (placeholder-index.ts), but for one written since the file watcher
// started: a save made while the first scan ran is a save. The scan runs on its own thread and takes as long as the
// run dir needs, so a save sent at traintop's start (a signal right after launch) often lands inside it.

import path from 'node:path';

/** Paths remembered; past this (a storm while the first scan runs) the rest go unheard: not reported as saves. */
const MAX_HEARD = 1000;

export class FirstScanWrites {
	/** Changed paths heard since the file watcher started; null once the first scan is published. */
	#heard: Set<string> | null = new Set();

	/** A change at `file` (a file watcher's event path). */
	heard(file: unknown): void {
		if (this.#heard === null || typeof file !== 'string' || this.#heard.size >= MAX_HEARD) return;
		this.#heard.add(file);
	}

	/**
	 * Ends the listening: the paths of `checkpoints` written since, where a change was heard at the checkpoint, inside
	 * it, or at a directory holding it below `runDir` (`checkpoints/` made by the first save: nothing inside a
	 * directory made after the watches were set is heard until the next rescan watches it). A change heard at the run
	 * dir itself (a storm that paused the watches) says nothing of any one checkpoint.
	 */
	take(runDir: string, checkpoints: readonly {readonly path: string}[]): string[] {
		const root = path.resolve(runDir);
		const heard = [...(this.#heard ?? [])].filter(file => file !== root);
		this.#heard = null;
		const written = (dir: string) =>
			heard.some(file => file === dir || file.startsWith(`${dir}/`) || dir.startsWith(`${file}/`));
		return checkpoints.filter(c => written(c.path)).map(c => c.path);
	}
}

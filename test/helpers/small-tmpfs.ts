import {execFileSync} from 'node:child_process';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll} from 'vitest';

// A small real file system to fill up, for the full-disk tests: a tmpfs of a given size, mounted for one test file.
// Mounting needs root; where it cannot be mounted the tests skip with the reason instead of failing.

export interface SmallTmpfs {
	/** Where it is mounted, once mounted (from beforeAll on); null where it could not be. */
	readonly dir: string | null;
	/** Why it could not be mounted ('' where it was): the tests' skip reason. */
	readonly why: string;
}

/** Mounts a tmpfs of `size` (mount's size=, e.g. '64k') before this file's tests, unmounts and removes it after. */
export function smallTmpfsForThisFile(size: string, prefix: string): SmallTmpfs {
	const tmpfs = {dir: null as string | null, why: ''};
	beforeAll(() => {
		const dir = mkdtempSync(path.join(tmpdir(), prefix));
		try {
			execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], {stdio: 'pipe'});
			tmpfs.dir = dir;
		} catch (error) {
			tmpfs.why = `cannot mount a tmpfs (${(error as Error).message.split('\n')[0]})`;
			rmSync(dir, {recursive: true, force: true});
		}
	});
	afterAll(() => {
		if (tmpfs.dir === null) return;
		execFileSync('umount', [tmpfs.dir]);
		rmSync(tmpfs.dir, {recursive: true, force: true});
	});
	return tmpfs;
}

/** Appends `chunkBytes` at a time to `filler` until the file system refuses more (ENOSPC). */
export function fillUntilFull(filler: string, chunkBytes: number): void {
	const chunk = Buffer.alloc(chunkBytes, 0x78);
	for (;;) {
		try {
			writeFileSync(filler, chunk, {flag: 'a'});
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return;
			throw error;
		}
	}
}

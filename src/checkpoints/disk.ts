// Free and total space of the file system holding a run dir.

import {promises as fs} from 'node:fs';

export interface DiskSpace {
	/** Bytes an unprivileged writer can still use (f_bavail × f_bsize: the root reserve left out). */
	readonly freeBytes: number;
	readonly totalBytes: number;
}

/** statfs(2) of `dir`; null when it cannot be read (missing, permission, a platform without statfs). */
export async function diskSpace(dir: string): Promise<DiskSpace | null> {
	try {
		const stats = await fs.statfs(dir);
		return {freeBytes: stats.bavail * stats.bsize, totalBytes: stats.blocks * stats.bsize};
	} catch {
		return null;
	}
}

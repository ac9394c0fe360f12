// Reads of the checkpoint scan stay inside the run dir. A symlinked directory that leads out of it is not followed
// (scan.ts), and neither is a link deeper down: `ln -s /etc/shadow run/checkpoint-100/trainer_state.json` put
// `root:*:…` into a warning, through the JSON parser's message. Each read first resolves its path and refuses one
// whose real path is outside the run dir's.

import {realpath} from 'node:fs/promises';
import path from 'node:path';
import {fsPath, nameFromBytes} from '../system/byte-names.js';

/** Whether `real` is `realRoot` or below it (both real paths). */
export function inside(realRoot: string, real: string): boolean {
	const rel = path.relative(realRoot, real);
	return rel === '' || (rel.split(path.sep)[0] !== '..' && !path.isAbsolute(rel));
}

/**
 * Why `file` is not read: it leads (through a link in any of its parts) to a real path outside `realRoot`; null when
 * it stays inside, or cannot be resolved (the read itself then says it is missing).
 */
export async function leadsOutside(realRoot: string, file: string): Promise<string | null> {
	let real: string;
	try {
		real = nameFromBytes(await realpath(fsPath(file), {encoding: 'buffer'}));
	} catch {
		return null;
	}
	return inside(realRoot, real) ? null : `a symlink to ${real}, outside the run dir: not followed`;
}

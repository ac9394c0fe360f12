import {existsSync} from 'node:fs';
import path from 'node:path';
import {UsageError} from '../core/errors.js';
import {existingRunDir} from './checkpoints.js';

/**
 * RUN_DIR, which may not exist yet: `torchrun … & traintop runs/x --pid $!` starts before the job makes its run
 * dir, and the watcher waits for it. Something there that is not a directory is still a usage error.
 */
export function runDirFrom(input: readonly string[]): string | null {
	if (input.length > 1) {
		throw new UsageError(`expected at most one RUN_DIR, got ${input.length}: ${input.join(' ')}`);
	}
	const runDir = input[0];
	if (runDir === undefined) return null;
	return existsSync(runDir) ? existingRunDir(runDir) : path.resolve(runDir);
}

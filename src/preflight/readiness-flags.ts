import {statSync} from 'node:fs';
import path from 'node:path';
import {UsageError} from '../core/errors.js';
import {readRegular} from '../system/safe-read.js';

// Preflight's readiness flags as given: the batch script's text (--batch-script) and the previous run dir (RUN_DIR or
// --run-dir). Each bad one is a UsageError (exit 2) that names the flag, the path and the rule.

/** A batch script is a page of shell; a larger file is a mistake (a checkpoint, a log), not one. */
const SCRIPT_MAX_BYTES = 1024 * 1024;

type Flags = Readonly<Record<string, unknown>>;

function given(flags: Flags, name: string, flag: string): string | null {
	const value = flags[name];
	if (value === undefined) return null;
	if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${flag} needs a value`);
	return value;
}

/** --batch-script FILE's path and text; null when not given. */
export async function batchScriptFlag(flags: Flags): Promise<{readonly file: string; readonly text: string} | null> {
	const file = given(flags, 'batchScript', '--batch-script');
	if (file === null) return null;
	const read = await readRegular(file, SCRIPT_MAX_BYTES, 'head', SCRIPT_MAX_BYTES);
	switch (read.status) {
		case 'ok':
			return {file, text: read.bytes.toString('utf8')};
		case 'missing':
			throw new UsageError(`--batch-script ${file}: no such file`);
		case 'refused':
			throw new UsageError(
				`--batch-script ${file}: ${read.reason} (a batch script is read only from a regular file of at most ${SCRIPT_MAX_BYTES} bytes)`,
			);
		case 'error':
			throw new UsageError(`--batch-script ${file}: cannot be read: ${read.error}`);
	}
}

/** A directory that must exist, named by the flag (or RUN_DIR) it came from; its absolute path. */
function existingDir(dir: string, flag: string): string {
	let isDirectory = false;
	try {
		isDirectory = statSync(dir).isDirectory();
	} catch {
		throw new UsageError(`${flag} ${dir}: no such directory`);
	}
	if (!isDirectory) throw new UsageError(`${flag} ${dir}: not a directory`);
	return path.resolve(dir);
}

/** The run dir: RUN_DIR or --run-dir DIR (both: the same one); null when neither is given. */
export function runDirOf(args: readonly string[], flags: Flags): string | null {
	if (args.length > 1) throw new UsageError(`preflight takes at most one RUN_DIR (got ${args.join(' ')})`);
	const flagged = given(flags, 'runDir', '--run-dir');
	const positional = args[0] ?? null;
	if (flagged !== null && positional !== null && path.resolve(flagged) !== path.resolve(positional))
		throw new UsageError(`RUN_DIR ${positional} and --run-dir ${flagged} name two run dirs: give one`);
	if (flagged !== null) return existingDir(flagged, '--run-dir');
	return positional === null ? null : existingDir(positional, 'RUN_DIR');
}

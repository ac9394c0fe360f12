// Finds the Python 3 interpreter that runs the demo job's ranks (real training ranks are Python processes).

import {accessSync, constants, statSync} from 'node:fs';
import path from 'node:path';

const DEFAULT_PYTHON = 'python3';

function isExecutableFile(file: string): boolean {
	try {
		if (!statSync(file).isFile()) return false;
		accessSync(file, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/**
 * The absolute path of `command` (default `python3`): itself when it contains a slash and is an executable file,
 * else the first executable match on `pathEnv`. Null when there is none.
 */
export function findPython(
	command: string = DEFAULT_PYTHON,
	pathEnv: string | undefined = process.env.PATH,
): string | null {
	if (command.includes('/')) return isExecutableFile(command) ? path.resolve(command) : null;
	for (const dir of (pathEnv ?? '').split(path.delimiter)) {
		if (dir === '') continue;
		const candidate = path.join(dir, command);
		if (isExecutableFile(candidate)) return candidate;
	}
	return null;
}

/** Like findPython, but throws an Error that names the interpreter when there is none. */
export function requirePython(
	command: string = DEFAULT_PYTHON,
	pathEnv: string | undefined = process.env.PATH,
): string {
	const found = findPython(command, pathEnv);
	if (found !== null) return found;
	const where = command.includes('/') ? `${command} is not an executable file` : `${command} was not found on PATH`;
	throw new Error(
		`${where}: the demo training job runs its ranks as Python 3 processes (standard library only); ` +
			'install Python 3 or name an interpreter explicitly',
	);
}

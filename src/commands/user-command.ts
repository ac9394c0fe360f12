import {readFileSync, realpathSync} from 'node:fs';
import path from 'node:path';

// How the user can run this traintop again from their shell, for a message that suggests a command (the demo's
// "look again: traintop checkpoints DIR"). The words must work when pasted: in a clone `traintop` is not on PATH,
// and a message that says `traintop …` there sends the user looking for a command they do not have.

export interface Invocation {
	/** The script node runs (process.argv[1]): dist/cli.js, or a bin link to it. */
	readonly script: string;
	readonly env: NodeJS.ProcessEnv;
	/** The shell's directory (npm runs scripts from the package root, npx from where it was typed). */
	readonly cwd: string;
}

const THIS_PROCESS: Invocation = {script: process.argv[1] ?? '', env: process.env, cwd: process.cwd()};

/**
 * `traintop` when the first `traintop` on the user's PATH is this very file (a global install); `npx traintop` when
 * npx fetched it (it runs from npx's cache) or the shell is inside the package it comes from (a clone: npx runs a
 * project's own bin); else `node /path/to/dist/cli.js`, which works from anywhere. npm's environment variables
 * cannot tell: a traintop started by anything under `npx` (a test runner) inherits npm_command=exec.
 */
export function traintopCommand({script, env, cwd}: Invocation = THIS_PROCESS): string {
	const self = realOrNull(script);
	if (self === null) return 'traintop';
	if (firstOnUserPath('traintop', env.PATH ?? '') === self) return 'traintop';
	if (inNpxCache(self) || insideOwnPackage(self, cwd)) return 'npx traintop';
	return `node ${shellWord(self)}`;
}

function realOrNull(file: string): string | null {
	try {
		return realpathSync(file);
	} catch {
		return null;
	}
}

/**
 * The real path of the first `name` on PATH, as the user's shell would find it. npm puts node_modules/.bin
 * directories first on the PATH of what it starts (npm run, npx); the user's shell has none of them.
 */
function firstOnUserPath(name: string, pathVariable: string): string | null {
	for (const dir of pathVariable.split(path.delimiter)) {
		if (dir === '' || dir.split(path.sep).join('/').includes('node_modules/.bin')) continue;
		const found = realOrNull(path.join(dir, name));
		if (found !== null) return found;
	}
	return null;
}

/** npx installs what it fetches under the npm cache's _npx directory (~/.npm/_npx/<hash>/node_modules/traintop). */
function inNpxCache(self: string): boolean {
	return self.split(path.sep).includes('_npx');
}

/** Whether `cwd` is in the traintop package whose dist/cli.js is `self` (its clone, or where it is installed). */
function insideOwnPackage(self: string, cwd: string): boolean {
	const root = path.dirname(path.dirname(self));
	try {
		const {name} = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {name?: unknown};
		if (name !== 'traintop') return false;
	} catch {
		return false;
	}
	const here = realOrNull(cwd) ?? cwd;
	return here === root || here.startsWith(`${root}${path.sep}`);
}

/** A path as one shell word: as it is when it has nothing the shell would split or expand, else single-quoted. */
function shellWord(text: string): string {
	return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

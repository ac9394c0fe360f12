import {existsSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

/** Tests that start real child processes run the built JavaScript; `npm test` builds first. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST = path.join(ROOT, 'dist');
export const CLI = path.join(DIST, 'cli.js');

export function requireBuild(): void {
	if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test does it first)`);
}

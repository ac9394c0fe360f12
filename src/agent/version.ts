import {readFileSync} from 'node:fs';

// The version a hello carries: package.json's, as `traintop --version` prints it (meow reads the same file). Two
// levels above this module both in src/agent (tests) and dist/agent (built).
const PACKAGE_JSON = new URL('../../package.json', import.meta.url);

export function traintopVersion(): string {
	try {
		const {version} = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as {version?: unknown};
		return typeof version === 'string' ? version : 'unknown';
	} catch {
		// An installed copy always has it; a broken one should still be able to say hello.
		return 'unknown';
	}
}

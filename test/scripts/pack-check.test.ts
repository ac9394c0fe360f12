import {execFile} from 'node:child_process';
import path from 'node:path';
import {promisify} from 'node:util';
import {expect, test} from 'vitest';
import {ROOT} from '../helpers/dist.js';

// SLOW (about 25 s on 2 cores, 60 s when other tests run beside it) and needs the npm REGISTRY (or npm's cache, once
// warm): scripts/pack-check.mjs, what `npm run pack:check` runs. A clone's `npm install` (it must build dist/), `npm
// pack` (prepack builds it clean), `npm install -g` of the tarball into a temp prefix (its dependencies from the
// registry), then the installed traintop. The script fails on any npm warning of the install, an install script in
// the tarball, a file the package needs and does not ship, a source map; it exits 3 when the registry cannot be
// reached, and then this test is skipped, saying so.

const run = promisify(execFile);

test('npm pack, then a global install of the tarball: no warning, nothing missing, traintop runs', async ({skip}) => {
	const result = await run(process.execPath, [path.join(ROOT, 'scripts/pack-check.mjs')], {
		cwd: ROOT,
		timeout: 170_000,
		maxBuffer: 16 * 1024 * 1024,
	}).then(
		({stdout, stderr}) => ({code: 0, stdout, stderr}),
		(error: {code?: number; stdout?: string; stderr?: string}) => ({
			code: error.code ?? -1,
			stdout: error.stdout ?? '',
			stderr: error.stderr ?? '',
		}),
	);
	if (result.code === 3) skip(`pack-check blocked: ${result.stdout.trim().split('\n').at(-1)}`);
	expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
	expect(result.stdout).toMatch(/^pack-check: npm install in a clone builds dist\//m);
	expect(result.stdout).toMatch(/^pack-check: traintop-\d+\.\d+\.\d+\.tgz: \d+ files/m);
	expect(result.stdout).toMatch(/^pack-check: npm install -g --prefix \S+: no warning/m);
	expect(result.stdout).toMatch(/^pack-check: traintop --version: \d+\.\d+\.\d+$/m);
	expect(result.stdout).toContain('pack-check: traintop checkpoints DIR --json: schema_version 1');
	expect(result.stdout).toMatch(/^pack-check: the package is clean$/m);
}, 180_000);

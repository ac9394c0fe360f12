#!/usr/bin/env node
// The package as a user gets it: `npm pack` in a fresh copy of this tree, then a global install of the tarball
// into a temporary prefix, then the installed `traintop` run from outside the tree.
//
//   npm run pack:check                   # or: node scripts/pack-check.mjs [--keep]
//
// Fails (exit 1) on: a clone's `npm install` that does not build dist/; an install script in the tarball's
// package.json or any npm warning during the global install (npm 11 warns about every install script not covered
// by allowScripts); a file the package needs that it does not ship (LICENSE, README, its screenshots, the Python
// example, the demo job); a source map in it or src/ shipped; `traintop --version`, `--help` or a real command failing.
// Exit 3: blocked, the registry could not be reached to install dependencies (npm's cache is used first, so a
// machine that ran it once can run it offline: PACK_CHECK_OFFLINE=1 adds --offline). The copy is made of the files
// git would carry (tracked and untracked, not ignored), so the working tree's dist/ and node_modules/ are left alone.

import {spawnSync} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const offline = process.env.PACK_CHECK_OFFLINE === '1' ? ['--offline'] : ['--prefer-offline'];
const work = mkdtempSync(path.join(tmpdir(), 'traintop-pack-'));
const clone = path.join(work, 'clone');
const prefix = path.join(work, 'prefix');
const outside = path.join(work, 'elsewhere');

/** Warnings about the machine's own npm configuration, not about the package (e.g. an `.npmrc` key npm dropped). */
const MACHINE_WARNING = /^npm warn Unknown (user|global|project|env|builtin) config /;
/** npm's words when the registry cannot be reached (or --offline finds a dependency missing from its cache). */
const UNREACHABLE =
	/E(NOTFOUND|AI_AGAIN|CONNREFUSED|CONNRESET|TIMEDOUT|NETUNREACH|NOTCACHED)|network request .* failed/;
/** Lifecycle scripts npm runs (or warns about) when it installs a package: none may be in the tarball. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

const problems = [];
const say = text => process.stdout.write(`pack-check: ${text}\n`);

function run(command, args, cwd, timeoutMs = 300_000) {
	const started = Date.now();
	const result = spawnSync(command, args, {cwd, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024});
	const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
	return {...result, output, seconds: ((Date.now() - started) / 1000).toFixed(1)};
}

function fail(text) {
	problems.push(text);
	say(`FAIL ${text}`);
}

function blocked(step, output) {
	const line = output.split('\n').find(l => UNREACHABLE.test(l)) ?? '';
	say(`BLOCKED ${step}: the registry could not be reached (${line.trim()})`);
	finish(3);
}

function finish(code) {
	if (keep) say(`kept ${work}`);
	else rmSync(work, {recursive: true, force: true});
	process.exit(code);
}

/** npm's warnings in an output, without those about this machine's npm configuration. */
function packageWarnings(output) {
	return output.split('\n').filter(line => /^npm warn/i.test(line) && !MACHINE_WARNING.test(line));
}

/** The files a fresh clone of this tree would have: tracked and untracked, not ignored (deleted ones skipped). */
function copyTree() {
	const listed = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], ROOT);
	if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.output}`);
	for (const file of listed.stdout.split('\0').filter(Boolean)) {
		const from = path.join(ROOT, file);
		if (!existsSync(from)) continue;
		mkdirSync(path.dirname(path.join(clone, file)), {recursive: true});
		cpSync(from, path.join(clone, file));
	}
}

/** Relative screenshot paths the README shows: the package must ship them, or the installed README has holes. */
function readmeImages(readme) {
	return [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map(m => m[1]).filter(src => !/^[a-z]+:/i.test(src));
}

function checkContents(files, manifest) {
	const shipped = new Set(files);
	const pkg = JSON.parse(readFileSync(path.join(clone, 'package.json'), 'utf8'));
	const needed = [
		'LICENSE',
		'README.md',
		'package.json',
		pkg.bin.traintop,
		'examples/python/train.py',
		'examples/python/traintop_signals.py',
		'examples/python/README.md',
		'demo/job/launcher.py',
		'demo/job/rank.py',
		...readmeImages(readFileSync(path.join(clone, 'README.md'), 'utf8')),
	];
	for (const file of needed) if (!shipped.has(file)) fail(`${file} is not in the tarball (package.json "files")`);
	for (const file of files) {
		if (file.endsWith('.map')) fail(`${file}: a source map in the package (tsconfig.build.json sourceMap)`);
		if (file.startsWith('src/')) fail(`${file}: src/ is shipped`);
	}
	// Every compiled module has its source in this tree: a stale dist/ file (its source deleted) would ship too.
	for (const file of files.filter(f => f.startsWith('dist/') && f.endsWith('.js'))) {
		const stem = path.join(clone, 'src', file.slice('dist/'.length, -'.js'.length));
		if (!existsSync(`${stem}.ts`) && !existsSync(`${stem}.tsx`)) fail(`${file} has no source in src/ (a stale build)`);
	}
	const scripts = Object.keys(manifest.scripts ?? {}).filter(name => INSTALL_SCRIPTS.includes(name));
	for (const name of scripts) fail(`the tarball's package.json has a "${name}" script: npm warns on install`);
	for (const field of ['repository', 'homepage', 'bugs', 'license'])
		if (!manifest[field]) fail(`package.json has no "${field}"`);
}

function checkInstalled(version) {
	const bin = path.join(prefix, 'bin', 'traintop');
	if (!existsSync(bin)) return fail(`${bin} is missing after the global install`);
	mkdirSync(outside, {recursive: true});
	const shown = run(bin, ['--version'], outside, 30_000);
	if (shown.status !== 0 || shown.stdout.trim() !== version)
		fail(`traintop --version printed '${shown.output.trim()}' (exit ${shown.status}), not ${version}`);
	else say(`traintop --version: ${version}`);
	const help = run(bin, ['--help'], outside, 30_000);
	if (help.status !== 0 || !/\btraintop\b/.test(help.stdout) || help.stdout.split('\n').length < 5)
		fail(`traintop --help (exit ${help.status}): ${help.output}`);
	else say(`traintop --help: ${help.stdout.split('\n').length} lines`);
	// A real command loads the runtime dependencies (zod, chokidar, yaml…), which --help does not all need.
	const listed = run(bin, ['checkpoints', outside, '--json'], outside, 30_000);
	let body = null;
	try {
		body = JSON.parse(listed.stdout);
	} catch {}
	if (listed.status !== 0 || body?.schema_version !== 1)
		fail(`traintop checkpoints --json (exit ${listed.status}): ${listed.output}`);
	else say('traintop checkpoints DIR --json: schema_version 1, no checkpoints');
}

say(`copying the tree to ${clone}`);
copyTree();

// A clone's `npm install` builds dist/ (postprepare: npm would warn about a prepare script in the tarball).
const installed = run('npm', ['install', '--no-audit', '--no-fund', ...offline], clone);
if (installed.status !== 0) {
	if (UNREACHABLE.test(installed.output)) blocked('npm install in the clone', installed.output);
	fail(`npm install in the clone (exit ${installed.status}):\n${installed.output}`);
	finish(1);
}
if (existsSync(path.join(clone, 'dist/cli.js'))) say(`npm install in a clone builds dist/ (${installed.seconds} s)`);
else fail('npm install in a clone did not build dist/cli.js');

const packed = run('npm', ['pack', '--json', '--pack-destination', work], clone);
if (packed.status !== 0) {
	fail(`npm pack (exit ${packed.status}):\n${packed.output}`);
	finish(1);
}
const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')));
const tarball = path.join(work, info.filename);
say(
	`${info.filename}: ${info.entryCount} files, ${(info.size / 1024).toFixed(0)} KiB (${packed.seconds} s with prepack)`,
);
const manifest = JSON.parse(run('tar', ['-xOzf', tarball, 'package/package.json'], work).stdout);
checkContents(
	info.files.map(f => f.path),
	manifest,
);

const global = run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', ...offline, tarball], work);
if (global.status !== 0) {
	if (UNREACHABLE.test(global.output)) blocked('npm install -g of the tarball', global.output);
	fail(`npm install -g ${info.filename} (exit ${global.status}):\n${global.output}`);
} else {
	const warnings = packageWarnings(global.output);
	for (const warning of warnings) fail(`npm install -g printed: ${warning}`);
	if (warnings.length === 0) say(`npm install -g --prefix ${prefix}: no warning (${global.seconds} s)`);
	checkInstalled(manifest.version);
}

if (problems.length > 0) {
	say(`${problems.length} problem(s)`);
	finish(1);
}
say('the package is clean');
finish(0);

// The checkpoint search below the run dir (src/checkpoints/search.ts), on copies of trees the frameworks wrote
// themselves (test/fixtures/frameworks/README.md) and on trees built to test its bounds: `traintop checkpoints` (the
// built binary) finds Lightning's ModelCheckpoint(dirpath=RUN/ckpts) and Orbax's CheckpointManager(RUN/ckpt), says
// where, and says what it searched when it found nothing; the watcher follows a RUN/ckpts made after it started.

import {spawn} from 'node:child_process';
import {cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs';
import fs from 'node:fs';
import {syncBuiltinESMExports} from 'node:module';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterEach, describe, expect, it} from 'vitest';
import {scanRunDir} from '../../src/checkpoints/scan.js';
import {MAX_DIRS_LISTED} from '../../src/checkpoints/scan-dirs.js';
import {CheckpointWatcher} from '../../src/checkpoints/watch.js';
import {runCli} from '../helpers/run-cli.js';
import {until} from '../helpers/until.js';

const FRAMEWORKS = fileURLToPath(new URL('../fixtures/frameworks/', import.meta.url));
const tempDirs: string[] = [];
const watchers: CheckpointWatcher[] = [];

afterEach(async () => {
	await Promise.all(watchers.splice(0).map(watcher => watcher.stop()));
	for (const dir of tempDirs.splice(0)) rmSync(dir, {recursive: true, force: true});
});

function tempRun(): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'traintop-search-'));
	tempDirs.push(dir);
	const run = path.join(dir, 'run');
	mkdirSync(run);
	return run;
}

/** A copy of a recorded tree (its symlinks as written: last.ckpt → step=70.ckpt). */
function copyOf(fixture: string): string {
	const run = tempRun();
	cpSync(path.join(FRAMEWORKS, fixture), run, {recursive: true, verbatimSymlinks: true});
	return run;
}

function put(run: string, rel: string, text = 'x'): void {
	mkdirSync(path.dirname(path.join(run, rel)), {recursive: true});
	writeFileSync(path.join(run, rel), text);
}

type Json = {
	checkpoints: {name: string; step: number | null; layout: string; group: string; status: string}[];
	retention: {groups: {layout: string; framework: string; dir: string}[]};
	warnings: string[];
};

async function checkpointsJson(run: string): Promise<Json> {
	const result = await runCli(['checkpoints', run, '--json']);
	expect(result.stderr).toBe('');
	expect(result.code).toBe(0);
	return JSON.parse(result.stdout) as Json;
}

describe('traintop checkpoints finds checkpoints where the frameworks put them', () => {
	it('Lightning 2.6.6 ModelCheckpoint(dirpath=RUN/ckpts): step=50, 60, 70 and the last.ckpt link, said to be in ckpts/', async () => {
		// Before the search: "no checkpoints yet in RUN" (only RUN, checkpoints/, checkpoint/, weights/ were looked in).
		const run = copyOf('recorded/lightning-dirpath-keep3');
		const text = await runCli(['checkpoints', run]);
		expect(text.code).toBe(0);
		expect(text.stdout).toContain(`4 checkpoints in ${run} (PyTorch Lightning in ckpts/)`);
		expect(text.stdout).toMatch(/^retention: PyTorch Lightning in ckpts\/ · /m);
		const json = await checkpointsJson(run);
		expect(json.checkpoints.map(c => [c.name, c.step, c.layout, c.status])).toEqual([
			['step=50.ckpt', 50, 'lightning', 'complete'],
			['step=60.ckpt', 60, 'lightning', 'complete'],
			['last.ckpt', 70, 'lightning', 'complete'],
			['step=70.ckpt', 70, 'lightning', 'complete'],
		]);
		expect(json.retention.groups.map(g => [g.framework, g.dir])).toEqual([['PyTorch Lightning', 'ckpts']]);
	});

	it('Orbax 0.12.4 CheckpointManager(RUN/ckpt): the step dirs ckpt/6, 8, 10, said to be in ckpt/', async () => {
		// Before the search: "no checkpoints yet in RUN".
		const run = copyOf('recorded/orbax-keep3');
		const text = await runCli(['checkpoints', run]);
		expect(text.stdout).toContain(`3 checkpoints in ${run} (Orbax in ckpt/)`);
		const json = await checkpointsJson(run);
		expect(json.checkpoints.map(c => [c.name, c.step, c.layout, c.status])).toEqual([
			['6', 6, 'orbax', 'complete'],
			['8', 8, 'orbax', 'complete'],
			['10', 10, 'orbax', 'complete'],
		]);
		// Nothing inside a step dir is a checkpoint of its own (default/, ocdbt.process_0/ are Orbax's items).
		expect(json.retention.groups.map(g => [g.layout, g.dir])).toEqual([['orbax', 'ckpt']]);
	});

	it('transformers 5.17 checkpoint-N dirs in a nested output dir (RUN/outputs/hf), never entered themselves', async () => {
		const run = tempRun();
		cpSync(path.join(FRAMEWORKS, 'hf-limit2'), path.join(run, 'outputs/hf'), {recursive: true});
		// A name the generic layout would claim, inside a claimed checkpoint: part of that checkpoint, not another one.
		put(run, 'outputs/hf/checkpoint-50/extra/model_step5.pt');
		const json = await checkpointsJson(run);
		expect(json.checkpoints.map(c => [c.name, c.layout])).toEqual([
			['checkpoint-40', 'huggingface'],
			['checkpoint-50', 'huggingface'],
		]);
		expect(json.retention.groups.map(g => [g.layout, g.dir])).toEqual([['huggingface', 'outputs/hf']]);
	});
	it("torchtitan's checkpoint/step-N (torch 2.11 DCP) in a nested dump folder (RUN/outputs) is torchtitan's", async () => {
		const run = tempRun();
		cpSync(path.join(FRAMEWORKS, 'recorded/dcp-steps'), path.join(run, 'outputs'), {recursive: true});
		const scan = await scanRunDir(run);
		expect(scan.checkpoints.map(c => [c.name, c.layout])).toEqual([
			['step-10', 'torchtitan'],
			['step-20', 'torchtitan'],
		]);
		expect(scan.groups.map(g => g.dir)).toEqual(['outputs/checkpoint']);
	});
});

describe('what the search leaves out, and its bounds', () => {
	it('skips .git, virtualenvs (by name or by pyvenv.cfg), node_modules, data, wandb, and says what it searched', async () => {
		const run = tempRun();
		for (const dir of ['.git', '.venv', 'venv', 'myenv', 'node_modules', 'data', 'wandb/run-1/files', 'a/__pycache__'])
			put(run, `${dir}/model_step100.pt`, 'PK');
		put(run, 'myenv/pyvenv.cfg', 'home = /usr/bin');
		const text = await runCli(['checkpoints', run]);
		expect(text.code).toBe(0);
		// run, a, myenv (listed, then left for its pyvenv.cfg)
		expect(text.stdout.trim()).toBe(
			`no checkpoints yet in ${run} (searched 3 directories to depth 4; skipped .git, .venv, data, node_modules, venv, 3 more)`,
		);
		const scan = await scanRunDir(run);
		expect(scan.search?.skipped).toEqual([
			'.git',
			'.venv',
			'data',
			'node_modules',
			'venv',
			'wandb',
			'a/__pycache__',
			'myenv',
		]);
	});

	it('looks 4 levels down and no further', async () => {
		const run = tempRun();
		put(run, 'a/b/c/d/model_step4.pt', 'PK');
		put(run, 'a/b/c/d/e/model_step5.pt', 'PK');
		const scan = await scanRunDir(run);
		expect(scan.checkpoints.map(c => c.name)).toEqual(['model_step4.pt']);
		expect(scan.search?.listed).toEqual(['', 'a', 'a/b', 'a/b/c', 'a/b/c/d']);
	});

	it('a tree wider than the cap: stops at the cap with a warning, checkpoint-like names searched first', async () => {
		const run = tempRun();
		for (let i = 0; i < MAX_DIRS_LISTED + 100; i++) mkdirSync(path.join(run, `sample-${String(i).padStart(4, '0')}`));
		put(run, 'zz-ckpts/model_step7.pt', 'PK');
		const scan = await scanRunDir(run);
		expect(scan.search?.capped).toBe(true);
		expect(scan.search?.dirs).toBe(MAX_DIRS_LISTED);
		expect(scan.warnings).toContainEqual(
			expect.stringMatching(/^checkpoint search stopped at its cap of 200 directories listed: 102 more/),
		);
		expect(scan.checkpoints.map(c => c.name)).toEqual(['model_step7.pt']);
	});

	it('a deep chain and a symlink loop end: each real directory is listed once', async () => {
		const run = tempRun();
		mkdirSync(path.join(run, ...Array.from({length: 40}, (_, i) => `d${i}`)), {recursive: true});
		symlinkSync('..', path.join(run, 'd0', 'up'));
		symlinkSync('.', path.join(run, 'self'));
		const scan = await scanRunDir(run);
		expect(scan.search?.listed).toEqual(['', 'd0', 'd0/d1', 'd0/d1/d2', 'd0/d1/d2/d3']);
		expect(scan.search?.capped).toBe(false);
	});

	it('a directory of 20k files below the run dir: listed, nothing claimed, no warning', async () => {
		const run = tempRun();
		mkdirSync(path.join(run, 'samples'));
		for (let i = 0; i < 20_000; i++) writeFileSync(path.join(run, 'samples', `sample-${i}.png`), '');
		const scan = await scanRunDir(run);
		expect(scan.checkpoints).toEqual([]);
		expect(scan.warnings).toEqual([]);
		expect(scan.search?.listed).toEqual(['', 'samples']);
	});
});

describe('a large directory the layouts found nothing in', () => {
	it('is not listed again while it stands unchanged, and is as soon as a name in it changes', async () => {
		const run = tempRun();
		mkdirSync(path.join(run, 'samples'));
		for (let i = 0; i < 2000; i++) writeFileSync(path.join(run, 'samples', `sample-${i}.png`), '');
		const listings: string[] = [];
		const readdir = fs.readdirSync;
		// Counts the scan's listings by name (listed-entries.ts), the real ones underneath.
		fs.readdirSync = ((dir: string, options: never) => {
			listings.push(String(dir));
			return readdir(dir, options);
		}) as typeof fs.readdirSync;
		syncBuiltinESMExports();
		try {
			await scanRunDir(run);
			const samples = path.join(run, 'samples');
			expect(listings.filter(dir => dir === samples)).toHaveLength(1);
			expect((await scanRunDir(run)).search?.listed).toEqual(['', 'samples']);
			expect(listings.filter(dir => dir === samples)).toHaveLength(1);
			writeFileSync(path.join(samples, 'model_step100.pt'), '');
			const scan = await scanRunDir(run);
			expect(listings.filter(dir => dir === samples)).toHaveLength(2);
			expect(scan.checkpoints.map(c => c.name)).toEqual(['model_step100.pt']);
		} finally {
			fs.readdirSync = readdir;
			syncBuiltinESMExports();
		}
	});
});

describe('the watcher', () => {
	it('follows a RUN/outputs/run1/ckpts made after it started: a real process writes Lightning checkpoints there', async () => {
		// Before: the scan never looked in ckpts/, and the watcher watched no directory three levels down but
		// lightning_logs/version_N and the checkpoints in RUN, checkpoints/, checkpoint/ and weights/.
		const run = tempRun();
		const watcher = new CheckpointWatcher({runDir: run, keep: null, scan: scanRunDir, debounceMs: 50});
		watchers.push(watcher);
		await watcher.start();
		expect(watcher.getIndex()?.checkpoints).toEqual([]);
		const source = path.join(FRAMEWORKS, 'recorded/lightning-dirpath-keep3/ckpts');
		// The job: makes the dir, then saves one checkpoint after another, as ModelCheckpoint does.
		const writer = `const fs = require('node:fs'); const [src, dst] = process.argv.slice(1);
			fs.mkdirSync(dst, {recursive: true}); for (const n of ['step=50.ckpt', 'step=60.ckpt']) fs.copyFileSync(src + '/' + n, dst + '/' + n);`;
		const child = spawn(process.execPath, ['-e', writer, source, path.join(run, 'outputs/run1/ckpts')], {
			stdio: 'inherit',
		});
		expect(await new Promise(resolve => child.once('exit', resolve))).toBe(0);
		const names = () => (watcher.getIndex()?.checkpoints ?? []).map(c => c.name).join(',');
		await until(names, seen => seen === 'step=50.ckpt,step=60.ckpt', 'both saves in outputs/run1/ckpts/ seen', 30_000);
		// The next save, into a directory now watched: heard as it lands.
		const next = spawn('cp', [path.join(source, 'step=70.ckpt'), path.join(run, 'outputs/run1/ckpts')], {
			stdio: 'inherit',
		});
		expect(await new Promise(resolve => next.once('exit', resolve))).toBe(0);
		await until(names, seen => seen === 'step=50.ckpt,step=60.ckpt,step=70.ckpt', 'the third save seen', 30_000);
		expect(watcher.getIndex()?.retention.groups.map(g => g.dir)).toEqual(['outputs/run1/ckpts']);
	}, 90_000);

	it('watches exactly what the search listed and the checkpoints it found, not a virtualenv or .git', async () => {
		const run = copyOf('recorded/orbax-keep3');
		for (const dir of ['myenv/lib/python3/site', 'myenv/bin', '.git/objects/aa', 'src/pkg'])
			mkdirSync(path.join(run, dir), {recursive: true});
		put(run, 'myenv/pyvenv.cfg', 'home = /usr/bin');
		const before = inotifyWatches();
		const watcher = new CheckpointWatcher({runDir: run, keep: null, scan: scanRunDir, debounceMs: 50});
		watchers.push(watcher);
		await watcher.start();
		// run, ckpt, src, src/pkg, myenv (listed, then left for its pyvenv.cfg: a pyvenv.cfg removed would change the
		// scan); ckpt/6, 8, 10 and their item dirs (default/): the checkpoints and one level inside. Not myenv's own
		// dirs, nor .git's, nor deeper in a step (ocdbt.process_0/, d/).
		expect(watcher.getIndex()?.search?.dirs).toBe(5);
		await until(inotifyWatches, n => n - before === 5 + 3 + 3, 'the watches trimmed to the scan', 15_000);
	});
});

/** The inotify watches this process holds now: one `inotify wd:` line each in /proc/self/fdinfo. */
function inotifyWatches(): number {
	let count = 0;
	for (const fd of readdirSync('/proc/self/fdinfo')) {
		try {
			count += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').match(/^inotify wd:/gm)?.length ?? 0;
		} catch {
			// an fd closed while being read
		}
	}
	return count;
}

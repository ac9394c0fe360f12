// The step signal reader on real files in a temporary run dir that each test writes step by step as the frameworks
// do (Lightning's CSVLogger appends rows and rewrites the file when new keys appear; the HF Trainer writes
// checkpoint-N/trainer_state.json last and truncates it in place; a log grows), with an injected clock: each refresh
// is one Monitor tick at a time the test chooses. Sources followed: src/lightning/fabric/loggers/csv_logs.py
// (lightning 2.6.6), trainer.py / trainer_callback.py (transformers 5.17), as the parsers' headers cite.

import {appendFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {DISCOVER_MS, StepSignalReader} from '../../src/checkpoints/progress-reader.js';
import {buildIndex} from '../../src/checkpoints/retention.js';
import {scanRunDir} from '../../src/checkpoints/scan.js';
import {makeTempDir, removeTempDirs, setMtime} from './fixtures.js';

const FRAMEWORKS = path.join(import.meta.dirname, '..', 'fixtures', 'frameworks');
// Whole seconds: a time set with utimes comes back exact.
const T0 = Math.floor(Date.now() / 1000) * 1000;

afterEach(removeTempDirs);

/** A clock the test moves; `at(s)` sets it to T0 + s seconds. */
function clock() {
	let now = T0;
	return {now: () => now, at: (seconds: number) => (now = T0 + seconds * 1000)};
}

const row = (step: number, loss = 1.3) => `0,${step},${loss}\r\n`;

describe('a Lightning metrics.csv', () => {
	it('moves on each new step: baseline, moves, medians, a rewrite with new keys, a torn rewrite', async () => {
		const run = makeTempDir('traintop-progress-');
		const csv = path.join(run, 'lightning_logs', 'version_0', 'metrics.csv');
		mkdirSync(path.dirname(csv), {recursive: true});
		cpSync(path.join(FRAMEWORKS, 'lightning-topk2', 'lightning_logs', 'version_0', 'metrics.csv'), csv);
		const time = clock();
		const reader = new StepSignalReader({runDir: run, progressFile: null, now: time.now});

		const first = await reader.refresh(null);
		expect(first).toEqual([{source: 'metrics-csv', path: csv, step: 49, movedAt: null, intervalS: null, stepS: null}]);
		time.at(1);
		expect(await reader.refresh(null)).toBe(first); // nothing changed: the same array object

		appendFileSync(csv, row(99));
		time.at(10);
		const one = await reader.refresh(null);
		expect(one[0]).toMatchObject({step: 99, movedAt: T0 + 10_000, intervalS: null, stepS: null});

		appendFileSync(csv, row(149));
		time.at(20);
		expect((await reader.refresh(null))[0]).toMatchObject({step: 149, movedAt: T0 + 20_000, intervalS: 10, stepS: 0.2});

		// A row with a new key: _ExperimentWriter.save truncates the file and writes header and rows again. Read while
		// only part of it is there, the last complete row is an old one: not a move.
		const header = 'epoch,step,train_loss,val_loss\r\n';
		const rows = ['0,49,1.35,\r\n', '0,99,1.3,\r\n', '0,149,1.3,\r\n'];
		writeFileSync(csv, header + rows[0]);
		time.at(25);
		const torn = await reader.refresh(null);
		expect(torn[0]).toMatchObject({step: 149, movedAt: T0 + 20_000});
		writeFileSync(csv, ''); // truncated, nothing written yet
		time.at(26);
		expect((await reader.refresh(null))[0]).toMatchObject({step: 149, movedAt: T0 + 20_000});

		writeFileSync(csv, `${header}${rows.join('')}0,199,,1.1\r\n`);
		time.at(30);
		expect((await reader.refresh(null))[0]).toMatchObject({step: 199, movedAt: T0 + 30_000, intervalS: 10, stepS: 0.2});

		// Unequal gaps: the medians of the intervals (10, 10, 20) and of the seconds per step (0.2, 0.2, 0.4).
		appendFileSync(csv, '0,249,1.0,\r\n');
		time.at(50);
		expect((await reader.refresh(null))[0]).toMatchObject({step: 249, intervalS: 10, stepS: 0.2});
		appendFileSync(csv, '0,299,1.0,\r\n');
		time.at(80);
		expect((await reader.refresh(null))[0]).toMatchObject({step: 299, intervalS: 15, stepS: expect.closeTo(0.3, 9)});
	});

	it('follows a metrics.csv that appears late, then a new logger version', async () => {
		const run = makeTempDir('traintop-progress-');
		const time = clock();
		const reader = new StepSignalReader({runDir: run, progressFile: null, now: time.now});
		expect(await reader.refresh(null)).toEqual([]);

		const csv = path.join(run, 'logs', 'lightning_logs', 'version_0', 'metrics.csv');
		mkdirSync(path.dirname(csv), {recursive: true});
		writeFileSync(csv, 'epoch,step,train_loss\r\n'); // a header, no row yet
		time.at(DISCOVER_MS / 1000 - 1);
		expect(await reader.refresh(null)).toEqual([]); // not looked for again before DISCOVER_MS
		time.at(DISCOVER_MS / 1000);
		expect(await reader.refresh(null)).toEqual([]); // found: no row yet, nothing to say
		appendFileSync(csv, row(49));
		time.at(12);
		// Written while traintop watched: a move, not a baseline.
		expect(await reader.refresh(null)).toEqual([
			{source: 'metrics-csv', path: csv, step: 49, movedAt: T0 + 12_000, intervalS: null, stepS: null},
		]);

		// A new run: version_1 with its own steps from the start.
		const next = path.join(run, 'logs', 'lightning_logs', 'version_1', 'metrics.csv');
		mkdirSync(path.dirname(next), {recursive: true});
		writeFileSync(next, `epoch,step,train_loss\r\n${row(9)}`);
		setMtime(csv, T0 - 60_000);
		time.at(25);
		expect((await reader.refresh(null))[0]).toMatchObject({path: next, step: 9, movedAt: T0 + 25_000});
	});
});

describe('Hugging Face trainer_state.json and the checkpoints, from the index', () => {
	it('moves when a newer checkpoint is complete; a torn save_state is not a move', async () => {
		const run = makeTempDir('traintop-progress-');
		cpSync(path.join(FRAMEWORKS, 'hf-limit2'), run, {recursive: true});
		const time = clock();
		const index = async () => buildIndex(await scanRunDir(run), {keep: null, now: time.now(), disk: null});
		const reader = new StepSignalReader({runDir: run, progressFile: null, now: time.now});
		const state50 = path.join(run, 'checkpoint-50', 'trainer_state.json');

		const first = await reader.refresh(await index());
		expect(first).toEqual([
			{
				source: 'checkpoints',
				path: path.join(run, 'checkpoint-50'),
				step: 50,
				movedAt: null,
				intervalS: null,
				stepS: null,
			},
			{source: 'trainer-state', path: state50, step: 50, movedAt: null, intervalS: null, stepS: null},
		]);

		// checkpoint-60 as _save_checkpoint writes it: the model and the rest first, trainer_state.json last.
		const dir60 = path.join(run, 'checkpoint-60');
		cpSync(path.join(run, 'checkpoint-50'), dir60, {recursive: true});
		rmSync(path.join(dir60, 'trainer_state.json'));
		const text50 = readFileSync(state50, 'utf8');
		const text60 = text50.replace('"global_step": 50', '"global_step": 60');
		writeFileSync(path.join(dir60, 'trainer_state.json'), text60);
		setMtime(dir60, T0 + 60_000);
		time.at(61);
		const moved = await reader.refresh(await index());
		expect(moved[0]).toMatchObject({source: 'checkpoints', step: 60, movedAt: T0 + 60_000});
		expect(moved[1]).toMatchObject({
			source: 'trainer-state',
			path: path.join(dir60, 'trainer_state.json'),
			step: 60,
			movedAt: T0 + 61_000,
		});

		// save_state writes output_dir/trainer_state.json in place: read while cut, it says nothing.
		const text70 = text50.replace('"global_step": 50', '"global_step": 70');
		const own = path.join(run, 'trainer_state.json');
		writeFileSync(own, text70.slice(0, text70.length / 2));
		time.at(61 + DISCOVER_MS / 1000);
		const cut = await reader.refresh(await index());
		expect(cut[1]).toMatchObject({step: 60, movedAt: T0 + 61_000});
		writeFileSync(own, text70);
		time.at(62 + DISCOVER_MS / 1000);
		const whole = await reader.refresh(await index());
		expect(whole[1]).toMatchObject({path: own, step: 70, movedAt: T0 + 72_000, intervalS: 11, stepS: 1.1});
		expect(whole[0]).toEqual(moved[0]); // the checkpoints signal did not move
	});
});

describe('--progress-file', () => {
	it('is a problem once while missing, followed once it appears, moving as it grows', async () => {
		const run = makeTempDir('traintop-progress-');
		const log = path.join(run, 'train.log');
		const time = clock();
		const reader = new StepSignalReader({runDir: null, progressFile: log, now: time.now});

		expect(await reader.refresh(null)).toEqual([]);
		const missing = reader.problems();
		expect(missing).toEqual([`--progress-file ${log}: not found; followed once it appears`]);
		time.at(1);
		await reader.refresh(null);
		expect(reader.problems()).toBe(missing); // the same problem, not a new one each tick

		writeFileSync(log, 'starting\nstep 100 loss 2.0\n');
		time.at(3);
		expect(await reader.refresh(null)).toEqual([
			{source: 'progress-file', path: log, step: 100, movedAt: T0 + 3_000, intervalS: null, stepS: null},
		]);
		expect(reader.problems()).toEqual([]);

		appendFileSync(log, 'step 150 loss 1.9\n');
		time.at(8);
		expect((await reader.refresh(null))[0]).toMatchObject({step: 150, movedAt: T0 + 8_000, intervalS: 5, stepS: 0.1});
		// A line naming no step: the file moved, its step stays the last one named.
		appendFileSync(log, 'evaluating\n');
		time.at(10);
		expect((await reader.refresh(null))[0]).toMatchObject({
			step: 150,
			movedAt: T0 + 10_000,
			intervalS: 3.5,
			stepS: 0.1,
		});
		// A line half written: more bytes, a move; its step is not read until the line ends.
		appendFileSync(log, 'step 2');
		time.at(12);
		expect((await reader.refresh(null))[0]).toMatchObject({step: 150, movedAt: T0 + 12_000});
		appendFileSync(log, '00 loss 1.8\n');
		time.at(14);
		// Seconds per step between the step changes: 5 s / 50 and 6 s / 50, median 0.11.
		expect((await reader.refresh(null))[0]).toMatchObject({step: 200, movedAt: T0 + 14_000, stepS: 0.11});
	});

	it('a file there at the start is the baseline; a directory is a problem, not an exception', async () => {
		const run = makeTempDir('traintop-progress-');
		const log = path.join(run, 'train.log');
		writeFileSync(log, 'step 5\n');
		const time = clock();
		const reader = new StepSignalReader({runDir: null, progressFile: log, now: time.now});
		expect(await reader.refresh(null)).toEqual([
			{source: 'progress-file', path: log, step: 5, movedAt: null, intervalS: null, stepS: null},
		]);
		const dirReader = new StepSignalReader({runDir: null, progressFile: run, now: time.now});
		expect(await dirReader.refresh(null)).toEqual([]);
		expect(dirReader.problems()).toEqual([`--progress-file ${run}: not a regular file; followed once it is one`]);
	});

	it('read() never waits: it hands back the last refresh and starts the next', async () => {
		const run = makeTempDir('traintop-progress-');
		const log = path.join(run, 'train.log');
		writeFileSync(log, 'step 5\n');
		const reader = new StepSignalReader({runDir: null, progressFile: log});
		expect(reader.read(null)).toEqual([]);
		const done = await reader.refresh(null);
		expect(reader.read(null)).toBe(done);
	});
});

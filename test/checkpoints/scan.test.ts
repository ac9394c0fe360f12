// The checkpoint scan on run dirs built in temp dirs: every layout, partial vs complete, merging, sizes, symlinks,
// warnings for malformed files, and agreement with the real demo job's checkpoint_metadata.json.

import {readFileSync, rmSync, statSync} from 'node:fs';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {UsageError} from '../../src/core/errors.js';
import type {ScannedCheckpoint, ScanResult} from '../../src/core/types.js';
import {scanRunDir} from '../../src/checkpoints/scan.js';
import {startDemoJob, type DemoJob} from '../../src/demo/job.js';
import {
	endRecord,
	link,
	makeTempDir,
	mkdir,
	put,
	removeTempDirs,
	seedCheckpoint,
	seedMetadata,
	setMtime,
	trainerState,
	zipArchive,
} from './fixtures.js';

afterAll(removeTempDirs);

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const MIN = 60_000;

function byName(result: ScanResult): Map<string, ScannedCheckpoint> {
	return new Map(result.checkpoints.map(item => [item.name, item]));
}

function get(result: ScanResult, name: string): ScannedCheckpoint {
	const item = byName(result).get(name);
	if (item === undefined) throw new Error(`${name} not found; have ${result.checkpoints.map(c => c.name).join(', ')}`);
	return item;
}

describe('seed layout', () => {
	it('takes epochs, kinds and times from checkpoint_metadata.json; .tmp and truncated files are partial', async () => {
		const run = makeTempDir();
		const a = seedCheckpoint(run, {step: 10, epoch: 0.1, kind: 'periodic', time: T0});
		const b = seedCheckpoint(run, {step: 20, epoch: 0.2, kind: 'manual', time: T0 + 2 * MIN});
		const c = seedCheckpoint(run, {step: 30, epoch: 0.3, kind: 'emergency', time: T0 + 4 * MIN});
		const unnamed = seedCheckpoint(run, {step: 35, epoch: 0.35, kind: 'periodic', time: T0 + 5 * MIN});
		const tmp = seedCheckpoint(run, {step: 40, epoch: 0.4, kind: 'periodic', time: T0 + 6 * MIN}, '.tmp');
		setMtime(tmp.dir, T0 + 6 * MIN);
		seedMetadata(run, [a, b, c], 3);
		for (const save of [a, b, c]) setMtime(save.dir, T0 + 60 * MIN); // the metadata's timestamp wins over mtime
		setMtime(unnamed.dir, T0 + 60 * MIN); // its meta.json's time wins over mtime too
		const emergency = put(run, 'emergency_state.pt', zipArchive(500));
		setMtime(emergency, T0 + 3 * MIN);
		const truncated = put(run, 'state.pt', zipArchive(5000).subarray(0, 3000));
		setMtime(truncated, T0 + 7 * MIN);

		const result = await scanRunDir(run);
		expect(result.layouts).toEqual(['seed']);
		expect(result.groups.find(group => group.declared !== null)?.declared?.keep).toBe(3);
		expect(result.warnings).toEqual([]);
		expect(result.checkpoints.map(item => item.name)).toEqual([
			a.name,
			b.name,
			'emergency_state.pt', // no step: placed by its time, between b and c
			c.name,
			unnamed.name,
			tmp.name,
			'state.pt',
		]);
		const first = get(result, a.name);
		expect(first).toEqual({
			path: a.dir,
			name: a.name,
			layout: 'seed',
			step: 10,
			epoch: 0.1,
			time: a.time,
			bytes: a.bytes,
			// Written just now by this test, in well under a second (null where no birth time is recorded).
			writeS: expect.toSatisfy((s: number | null) => s === null || (s >= 0 && s < 5)),
			status: 'complete',
			kind: 'periodic',
			loss: null,
			metric: null,
			group: 'seed:checkpoints',
			warnings: [],
		});
		expect(get(result, b.name)).toMatchObject({step: 20, kind: 'manual', epoch: 0.2, time: b.time});
		expect(get(result, c.name)).toMatchObject({step: 30, kind: 'emergency', time: c.time, status: 'complete'});
		// Not named in the metadata (a save in the gap between its rename and the metadata's): its own meta.json.
		const notInMetadata = {step: 35, kind: 'periodic', epoch: 0.35, time: T0 + 5 * MIN, status: 'complete'};
		expect(get(result, unnamed.name)).toMatchObject(notInMetadata);
		expect(get(result, tmp.name)).toMatchObject({step: 40, status: 'partial', bytes: tmp.bytes});
		const emergencyFile = {kind: 'emergency', status: 'complete', step: null, bytes: statSync(emergency).size};
		expect(get(result, 'emergency_state.pt')).toMatchObject(emergencyFile);
		expect(get(result, 'state.pt')).toMatchObject({status: 'partial', warnings: ['truncated: no zip end record']});
	});

	it("reads each directory's meta.json when checkpoint_metadata.json is malformed, with a warning", async () => {
		const run = makeTempDir();
		const a = seedCheckpoint(run, {step: 100, epoch: 1, kind: 'periodic', time: T0});
		const b = seedCheckpoint(run, {step: 50, epoch: 0.5, kind: 'manual', time: T0 + MIN});
		put(run, 'checkpoints/checkpoint_metadata.json', '{"checkpoints": [ {"step": 100,');
		setMtime(a.dir, T0 + 10 * MIN);
		setMtime(b.dir, T0 + 20 * MIN);

		const result = await scanRunDir(run);
		// The kinds, epochs and times the directories' own meta.json files hold, not their mtimes.
		expect(result.checkpoints.map(item => [item.step, item.kind, item.epoch, item.time])).toEqual([
			[50, 'manual', 0.5, T0 + MIN],
			[100, 'periodic', 1, T0],
		]);
		expect(result.groups.every(group => group.declared === null)).toBe(true);
		expect(result.warnings).toHaveLength(1);
		expect(result.warnings[0]).toMatch(/^checkpoints\/checkpoint_metadata\.json: .*JSON/);
	});

	it('a complete directory the metadata does not name yet: kind, epoch and time from its meta.json', async () => {
		const run = makeTempDir();
		const old = seedCheckpoint(run, {step: 10, epoch: 0.1, kind: 'periodic', time: T0});
		seedMetadata(run, [old], 5);
		// Renamed into place, not yet in checkpoint_metadata.json: the demo's order of writes.
		const manual = seedCheckpoint(run, {step: 20, epoch: 0.2, kind: 'manual', time: T0 + 2 * MIN});
		setMtime(manual.dir, T0 + 60 * MIN);
		// A job that records why it saved rather than a kind.
		const why = seedCheckpoint(run, {step: 30, epoch: 0.3, kind: 'periodic', time: T0 + 3 * MIN});
		put(why.dir, 'meta.json', JSON.stringify({step: 30, epoch: 0.3, reason: 'SIGTERM', time: 'soon'}));
		setMtime(why.dir, T0 + 45 * MIN); // its time is not a date: the mtime stands in
		// Seed jobs other than the demo may write no meta.json at all: the name and mtime are all there is.
		const bare = seedCheckpoint(run, {step: 40, epoch: 0.4, kind: 'manual', time: T0 + 4 * MIN});
		rmSync(path.join(bare.dir, 'meta.json'));
		setMtime(bare.dir, T0 + 50 * MIN);
		const broken = seedCheckpoint(run, {step: 50, epoch: 0.5, kind: 'manual', time: T0 + 5 * MIN});
		put(broken.dir, 'meta.json', '{"step": 50,');
		setMtime(broken.dir, T0 + 55 * MIN);

		const result = await scanRunDir(run);
		expect(result.warnings).toEqual([]);
		const rows = result.checkpoints.map(item => [item.step, item.kind, item.epoch, item.time, item.warnings]);
		expect(rows).toEqual([
			[10, 'periodic', 0.1, T0, []],
			[20, 'manual', 0.2, T0 + 2 * MIN, []],
			[30, 'emergency', 0.3, T0 + 45 * MIN, ['meta.json: time "soon" is not a date']],
			[40, 'unknown', null, T0 + 50 * MIN, []],
			[50, 'unknown', null, T0 + 55 * MIN, [expect.stringMatching(/^meta\.json: .*JSON/)]],
		]);
	});

	it("a metadata entry wins over the directory's meta.json when both name the save", async () => {
		const run = makeTempDir();
		const save = seedCheckpoint(run, {step: 20, epoch: 0.2, kind: 'manual', time: T0});
		const entry = {...save.entry, kind: 'periodic', epoch: 0.25, timestamp: new Date(T0 + MIN).toISOString()};
		put(run, 'checkpoints/checkpoint_metadata.json', JSON.stringify({checkpoints: [entry], max_checkpoints: 5}));

		const result = await scanRunDir(run);
		expect(get(result, save.name)).toMatchObject({kind: 'periodic', epoch: 0.25, time: T0 + MIN, warnings: []});
	});
});

describe('Hugging Face layout', () => {
	it('reads trainer_state.json; no state, cut state, sentinel, tmp-: partial; best marked', async () => {
		const run = makeTempDir();
		put(run, 'checkpoint-100/trainer_state.json', trainerState({epoch: 0.5, step: 100, losses: [2.5, 2.0]}));
		put(run, 'checkpoint-100/model.safetensors', 300);
		put(run, 'checkpoint-200/trainer_state.json', trainerState({epoch: 1, step: 200, losses: [2.5, 1.8, 1.2]}));
		put(run, 'checkpoint-300/model.safetensors', 300); // killed before trainer_state.json
		const newest = trainerState({epoch: 2, step: 400, losses: [0.9], best: '/job/out/checkpoint-100'});
		put(run, 'checkpoint-400/trainer_state.json', newest);
		put(run, 'checkpoint-400/checkpoint-is-incomplete.txt', '');
		const older = trainerState({epoch: 1.75, step: 350, losses: [1.0], best: 'out/checkpoint-200'});
		put(run, 'checkpoint-350/trainer_state.json', older);
		put(run, 'checkpoint-50/trainer_state.json', '{"epoch": 0.25, "global_step": 5');
		put(run, 'tmp-checkpoint-500/model.safetensors', 10);

		const result = await scanRunDir(run);
		expect(result.layouts).toEqual(['huggingface']);
		expect(result.checkpoints.map(item => [item.name, item.step, item.status, item.kind])).toEqual([
			['checkpoint-50', 50, 'partial', 'periodic'], // trainer_state.json (written last) cut short
			['checkpoint-100', 100, 'complete', 'best'], // named by the newest state (checkpoint-400), not checkpoint-350's
			['checkpoint-200', 200, 'complete', 'periodic'],
			['checkpoint-300', 300, 'partial', 'periodic'],
			['checkpoint-350', 350, 'complete', 'periodic'],
			['checkpoint-400', 400, 'partial', 'emergency'],
			['tmp-checkpoint-500', 500, 'partial', 'periodic'],
		]);
		expect(get(result, 'checkpoint-200')).toMatchObject({epoch: 1, loss: 1.2, warnings: []});
		expect(get(result, 'checkpoint-100')).toMatchObject({epoch: 0.5, loss: 2.0});
		expect(get(result, 'checkpoint-300')).toMatchObject({epoch: null, loss: null, bytes: 300});
		const malformed = get(result, 'checkpoint-50');
		expect(malformed.epoch).toBeNull();
		expect(malformed.warnings).toHaveLength(1);
		expect(malformed.warnings[0]).toMatch(/^trainer_state\.json does not parse as JSON .*: its write was cut short$/);
		expect(result.warnings).toEqual([]);
	});
});

describe('Lightning layout', () => {
	it('parses names, checks zip end records, follows last.ckpt, knows hpc/exception saves and .ckpt dirs', async () => {
		const run = makeTempDir();
		const dir = 'lightning_logs/version_0/checkpoints';
		const good = zipArchive(4000);
		put(run, `${dir}/epoch=0-step=100.ckpt`, good);
		put(run, `${dir}/epoch=1-step=200.ckpt`, good.subarray(0, good.length - 30));
		const v1 = put(run, `${dir}/epoch=1-step=200-v1.ckpt`, zipArchive(7000));
		setMtime(v1, T0 + 5 * MIN);
		put(run, `${dir}/epoch=2-val_loss=0.12.ckpt`, endRecord()); // an empty zip: just the 22-byte record
		put(run, `${dir}/epoch=3-step=400.ckpt`, zipArchive(100, Buffer.alloc(1000, 0x20))); // record before a comment
		const last = link(run, `${dir}/last.ckpt`, 'epoch=1-step=200-v1.ckpt');
		put(run, `${dir}/epoch=4-step=500.ckpt/latest`, 'global_step500');
		put(run, `${dir}/epoch=4-step=500.ckpt/checkpoint/mp_rank_00_model_states.pt`, 64);
		put(run, `${dir}/epoch=5-step=600.ckpt/checkpoint/mp_rank_00_model_states.pt`, 64);
		put(run, 'hpc_ckpt_2.ckpt', good);
		put(run, 'on_exception.ckpt', good);

		const result = await scanRunDir(run);
		expect(result.layouts).toEqual(['lightning']);
		const rows = new Map(result.checkpoints.map(item => [item.name, [item.epoch, item.step, item.kind, item.status]]));
		expect(Object.fromEntries(rows)).toEqual({
			'epoch=0-step=100.ckpt': [0, 100, 'periodic', 'complete'],
			'epoch=1-step=200.ckpt': [1, 200, 'periodic', 'partial'],
			'epoch=1-step=200-v1.ckpt': [1, 200, 'periodic', 'complete'],
			'epoch=2-val_loss=0.12.ckpt': [2, null, 'periodic', 'complete'],
			'epoch=3-step=400.ckpt': [3, 400, 'periodic', 'complete'],
			'last.ckpt': [1, 200, 'last', 'complete'], // a link: its target's epoch and step
			'epoch=4-step=500.ckpt': [4, 500, 'periodic', 'complete'],
			'epoch=5-step=600.ckpt': [5, 600, 'periodic', 'partial'],
			'hpc_ckpt_2.ckpt': [null, null, 'manual', 'complete'],
			'on_exception.ckpt': [null, null, 'emergency', 'complete'],
		});
		expect(get(result, 'epoch=1-step=200.ckpt').warnings).toEqual(['truncated: no zip end record']);
		expect(get(result, 'last.ckpt')).toMatchObject({path: last, bytes: statSync(v1).size, time: T0 + 5 * MIN});
		expect(get(result, 'epoch=4-step=500.ckpt').bytes).toBe('global_step500'.length + 64);
	});

	it('lists a dangling last.ckpt symlink as partial with a warning', async () => {
		const run = makeTempDir();
		put(run, 'checkpoints/epoch=0-step=10.ckpt', zipArchive(10));
		link(run, 'checkpoints/last.ckpt', 'epoch=0-step=5.ckpt');
		const result = await scanRunDir(run);
		const last = get(result, 'last.ckpt');
		expect(last).toMatchObject({kind: 'last', status: 'partial', bytes: 0, layout: 'lightning'});
		expect(last.warnings).toEqual([expect.stringMatching(/dangling symlink to epoch=0-step=5\.ckpt/)]);
		expect(get(result, 'epoch=0-step=10.ckpt').status).toBe('complete');
	});
});

describe('DeepSpeed, DCP and generic layouts', () => {
	it('DeepSpeed: latest and older are complete, a newer global_step dir is partial', async () => {
		const run = makeTempDir();
		for (const step of [100, 200, 300]) {
			put(run, `global_step${step}/mp_rank_00_model_states.pt`, step);
			put(run, `global_step${step}/zero_pp_rank_0_mp_rank_00_optim_states.pt`, 7);
		}
		put(run, 'latest', 'global_step200');
		const result = await scanRunDir(run);
		expect(result.layouts).toEqual(['deepspeed']);
		expect(result.checkpoints.map(item => [item.step, item.status, item.bytes])).toEqual([
			[100, 'complete', 107],
			[200, 'complete', 207],
			[300, 'partial', 307],
		]);
	});

	it('DCP: .metadata is complete, .metadata.tmp or bare shards are partial; other directories are ignored', async () => {
		const run = makeTempDir();
		// In checkpoints/, not torchtitan's default checkpoint/ (where step-<N> dirs are torchtitan's).
		put(run, 'checkpoints/step-100/.metadata', 50);
		put(run, 'checkpoints/step-100/__0_0.distcp', 200);
		put(run, 'checkpoints/step-200/.metadata.tmp', 40);
		put(run, 'checkpoints/step-200/__0_0.distcp', 200);
		put(run, 'checkpoints/step_300/__0_0.distcp', 100);
		put(run, 'sharded/.metadata', 5);
		put(run, 'data/train.jsonl', 1000);
		['step-100', 'step-200', 'step_300'].forEach((name, i) => {
			setMtime(path.join(run, 'checkpoints', name), T0 + i * MIN);
		});
		setMtime(path.join(run, 'sharded'), T0 + 10 * MIN); // no step: placed by time, after the others
		const result = await scanRunDir(run);
		expect(result.layouts).toEqual(['dcp']);
		expect(result.checkpoints.map(item => [item.name, item.step, item.status, item.bytes])).toEqual([
			['step-100', 100, 'complete', 250],
			['step-200', 200, 'partial', 240],
			['step_300', 300, 'partial', 100],
			['sharded', null, 'complete', 5],
		]);
	});

	it('generic: checkpoint-like names with a number; .tmp partial; shards and plain names not', async () => {
		const run = makeTempDir();
		put(run, 'model_step1000.pt', 10);
		put(run, 'ckpt-200.pth', 20);
		put(run, 'iter_0000500/model.bin', 30);
		put(run, 'model_step1500.pt.tmp', 5);
		put(run, 'model_epoch3.safetensors', 7);
		put(run, 'model.safetensors', 40);
		put(run, 'model-00001-of-00002.safetensors', 50);
		put(run, 'notes_step5.txt', 1);
		for (const name of ['model_step1000.pt', 'ckpt-200.pth', 'iter_0000500', 'model_step1500.pt.tmp']) {
			setMtime(path.join(run, name), T0);
		}
		setMtime(path.join(run, 'model_epoch3.safetensors'), T0 + MIN); // no step: placed by time, after the others
		const result = await scanRunDir(run);
		expect(result.layouts).toEqual(['generic']);
		const rows = result.checkpoints.map(item => [item.name, item.step, item.epoch, item.status, item.kind, item.bytes]);
		expect(rows).toEqual([
			['ckpt-200.pth', 200, null, 'complete', 'unknown', 20],
			['iter_0000500', 500, null, 'complete', 'unknown', 30],
			['model_step1000.pt', 1000, null, 'complete', 'unknown', 10],
			['model_step1500.pt.tmp', 1500, null, 'partial', 'unknown', 5],
			['model_epoch3.safetensors', null, 3, 'complete', 'unknown', 7],
		]);
	});
});

describe('the run dir', () => {
	it('merges layouts in a mixed dir: each path once, claimed by its specific layout, oldest first', async () => {
		const run = makeTempDir();
		const seed = seedCheckpoint(run, {step: 30, epoch: 0.3, kind: 'periodic', time: T0});
		seedMetadata(run, [seed], 5);
		put(run, 'checkpoint-20/trainer_state.json', trainerState({epoch: 0.2, step: 20, losses: [1]}));
		put(run, 'epoch=0-step=10.ckpt', zipArchive(10));
		put(run, 'global_step40/mp_rank_00_model_states.pt', 1);
		put(run, 'latest', 'global_step40');
		put(run, 'step_60/.metadata', 1);
		put(run, 'model_step50.pt', 1);
		const result = await scanRunDir(run);
		expect(result.layouts).toEqual(['seed', 'huggingface', 'lightning', 'deepspeed', 'dcp', 'generic']);
		expect(result.checkpoints.map(item => [item.step, item.layout])).toEqual([
			[10, 'lightning'],
			[20, 'huggingface'],
			[30, 'seed'],
			[40, 'deepspeed'],
			[50, 'generic'],
			[60, 'dcp'],
		]);
		expect(result.groups.find(group => group.layout === 'seed')?.declared?.keep).toBe(5);
		// HF: no training_args.bin, so no keep; its trainer_state.json still declares what it says.
		expect(result.groups.find(group => group.layout === 'huggingface')?.declared?.keep).toBeNull();
		expect(new Set(result.checkpoints.map(item => item.path)).size).toBe(result.checkpoints.length);
	});

	it('an empty run dir has no checkpoints and no warnings', async () => {
		const run = makeTempDir();
		expect(await scanRunDir(run)).toEqual({
			runDir: run,
			layouts: [],
			checkpoints: [],
			groups: [],
			warnings: [],
			search: {dirs: 1, maxDepth: 4, skipped: [], capped: false, listed: [''], checkpointDirs: []},
		});
	});

	it('a missing run dir or a file throws UsageError', async () => {
		const run = makeTempDir();
		await expect(scanRunDir(path.join(run, 'nope'))).rejects.toThrow(UsageError);
		await expect(scanRunDir(path.join(run, 'nope'))).rejects.toThrow(/does not exist/);
		await expect(scanRunDir(put(run, 'file', 'x'))).rejects.toThrow(/is not a directory/);
	});

	it('does not follow symlinked directories out of the run dir, but follows those that stay inside', async () => {
		const outside = makeTempDir('traintop-scan-outside-');
		const elsewhere = seedCheckpoint(outside, {step: 7, epoch: 0, kind: 'periodic', time: T0});
		seedMetadata(outside, [elsewhere], 9);
		put(outside, 'hf/checkpoint-70/trainer_state.json', trainerState({epoch: 1, step: 70, losses: [1]}));
		const run = makeTempDir();
		link(run, 'checkpoints', path.join(outside, 'checkpoints'));
		link(run, 'checkpoint-70', path.join(outside, 'hf/checkpoint-70'));
		put(run, 'kept/step_5/.metadata', 3);
		link(run, 'checkpoint', 'kept');
		const result = await scanRunDir(run);
		const inside = [['step_5', path.join(run, 'checkpoint/step_5')]];
		expect(result.checkpoints.map(item => [item.name, item.path])).toEqual(inside);
		expect(result.groups.every(group => group.declared === null)).toBe(true);
		expect(result.warnings).toEqual([
			expect.stringMatching(/^checkpoint-70: symlink to .*outside the run dir: not followed$/),
			expect.stringMatching(/^checkpoints: symlink to .*outside the run dir: not followed$/),
		]);
	});

	it('sums the files of a directory exactly, nested ones included, symlinks not counted', async () => {
		const run = makeTempDir();
		put(run, 'step_100/a.bin', 1234);
		put(run, 'step_100/sub/b.bin', 4321);
		put(run, 'step_100/sub/deeper/c.bin', 17);
		put(run, 'step_100/empty.txt', '');
		link(run, 'step_100/sub/link.bin', path.join(run, 'step_100/a.bin'));
		mkdir(run, 'step_100/sub/nothing');
		const result = await scanRunDir(run);
		expect(get(result, 'step_100').bytes).toBe(1234 + 4321 + 17);
	});
});

describe('the demo job', () => {
	let job: DemoJob | null = null;
	afterEach(async () => {
		await job?.stop();
		job = null;
	});

	it('agrees with the real writer: the steps, kinds, epochs and times of its checkpoint_metadata.json', async () => {
		const run = path.join(makeTempDir(), 'run');
		const options = {ranks: 2, workers: 1, stepSeconds: 0.05, saveEvery: 5, maxCheckpoints: 3, shutdownTimeoutS: 3};
		job = await startDemoJob({runDir: run, ...options});
		await job.waitForLine(/saved checkpoint_step_20_/, 20_000);
		await job.stop();
		interface Entry {
			step: number;
			epoch: number;
			timestamp: string;
			checkpoint_path: string;
			kind: string;
		}
		const metaFile = path.join(run, 'checkpoints/checkpoint_metadata.json');
		const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as {checkpoints: Entry[]; max_checkpoints: number};
		expect(meta.max_checkpoints).toBe(3);
		const result = await scanRunDir(run);
		expect(result.layouts).toEqual(['seed']);
		expect(result.groups.find(group => group.declared !== null)?.declared?.keep).toBe(3);
		expect(result.warnings).toEqual([]);
		const complete = result.checkpoints.filter(item => item.status === 'complete');
		const expected = meta.checkpoints.map(entry => ({
			name: path.basename(entry.checkpoint_path),
			step: entry.step,
			epoch: entry.epoch,
			kind: entry.kind,
			time: Date.parse(entry.timestamp),
		}));
		expect(complete.map(({name, step, epoch, kind, time}) => ({name, step, epoch, kind, time}))).toEqual(expected);
		expect(expected).toHaveLength(3);
		expect(expected.at(-1)?.kind).toBe('emergency'); // saved on the SIGTERM that stop() sends
		for (const item of complete) expect(item.bytes).toBe(256 * 1024 + statSync(path.join(item.path, 'meta.json')).size);
	});
});

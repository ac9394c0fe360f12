import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {FS_IO, scanRunDir} from '../../../src/checkpoints/scan.js';
import {readTorchFile} from '../../../src/checkpoints/torch-file/torch-file.js';
import {attr, pyRepr} from '../../../src/checkpoints/torch-file/py-value.js';
import {makeTempDir, put, removeTempDirs} from '../fixtures.js';
import {hfCheckpoint, hfFinalModel, hfStaging, trainingArgsBin, type HfSave} from './huggingface-fixture.js';
import {pickleObject} from './huggingface-torch.js';

// The HF Trainer as transformers' trainer.py writes and rotates it: trainer_state.json last, the JIT sentinel, the
// staging dir of older releases; _rotate_checkpoints after each save, the best counted toward save_total_limit but
// moved out of the way, the limit-1 special case, mtime order; save_total_limit read from training_args.bin.

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const MIN = 60_000;

async function index(run: string, keep: number | null = null) {
	const scan = await scanRunDir(run);
	return {scan, index: buildIndex(scan, {keep, now: T0 + 1000 * MIN, disk: null})};
}

function save(step: number, fields: Partial<HfSave> = {}): HfSave {
	return {step, epoch: step / 100, time: T0 + step * MIN, losses: [2, 1.5, 1 / (step / 100)], ...fields};
}

function names(paths: readonly string[]): string[] {
	return paths.map(p => path.basename(p));
}

describe('Hugging Face Trainer layout', () => {
	it('reads steps, epochs, losses and the best; save_total_limit 3 from the newest checkpoint: prunes the oldest non-best', async () => {
		// What _rotate_checkpoints leaves with save_total_limit 3 after saves 100…500 when 200 became the best.
		const run = makeTempDir();
		const best = 'out/checkpoint-200';
		hfCheckpoint(run, save(200, {best, saveTotalLimit: 3}));
		hfCheckpoint(run, save(400, {best, saveTotalLimit: 3}));
		hfCheckpoint(run, save(500, {best, saveTotalLimit: 3}));
		const {scan, index: idx} = await index(run, 7);
		expect(scan.layouts).toEqual(['huggingface']);
		expect(idx.checkpoints.map(c => [c.name, c.step, c.epoch, c.loss, c.status, c.kind, c.retention])).toEqual([
			['checkpoint-200', 200, 2, 0.5, 'complete', 'best', 'protected'],
			['checkpoint-400', 400, 4, 0.25, 'complete', 'periodic', 'prune-next'],
			['checkpoint-500', 500, 5, 0.2, 'complete', 'periodic', 'keep'],
		]);
		expect(idx.checkpoints.every(c => c.warnings.length === 0)).toBe(true);
		expect(idx.retention.groups).toEqual([
			{
				key: 'huggingface:',
				layout: 'huggingface',
				framework: 'Hugging Face Trainer',
				dir: '',
				rule: 'HF save_total_limit 3, best protected',
				keep: 3,
				source: 'metadata',
				from: 'checkpoint-500/training_args.bin save_total_limit',
				count: 3, // the best counts toward the limit
				toPrune: [path.join(run, 'checkpoint-400')],
				// Each setting read, with its file (this fixture's TrainingArguments has no save_strategy: no cadence).
				facts: [
					{key: 'save_total_limit', value: '3', from: 'checkpoint-500/training_args.bin'},
					{key: 'load_best_model_at_end', value: 'True', from: 'checkpoint-500/training_args.bin'},
					{key: 'metric_for_best_model', value: "'loss'", from: 'checkpoint-500/training_args.bin'},
					{key: 'best_model_checkpoint', value: "'out/checkpoint-200'", from: 'checkpoint-500/trainer_state.json'},
					{key: 'global_step', value: '500', from: 'checkpoint-500/trainer_state.json'},
					{key: 'log_history', value: '4 entries', from: 'checkpoint-500/trainer_state.json'},
				],
			},
		]);
		expect(idx.warnings).toContain(
			'--keep 7 not used for the Hugging Face Trainer checkpoints: checkpoint-500/training_args.bin save_total_limit says 3, and the framework rotates by that',
		);
	});

	it('save_total_limit 1 with a best keeps two (the best and the newest); without a best, every older one goes', async () => {
		const withBest = makeTempDir();
		hfCheckpoint(withBest, save(200, {best: 'out/checkpoint-200', saveTotalLimit: 1}));
		hfCheckpoint(withBest, save(500, {best: 'out/checkpoint-200', saveTotalLimit: 1}));
		const a = (await index(withBest)).index;
		expect(a.retention.groups[0]?.rule).toBe('HF save_total_limit 1, best protected (keeps 2: best and newest)');
		expect(names(a.retention.toPrune)).toEqual(['checkpoint-500']);

		const noBest = makeTempDir();
		hfCheckpoint(noBest, save(400, {saveTotalLimit: 1}));
		hfCheckpoint(noBest, save(500, {saveTotalLimit: 1}));
		const b = (await index(noBest)).index;
		expect(b.retention.groups[0]?.rule).toBe('HF save_total_limit 1');
		expect(names(b.retention.toPrune)).toEqual(['checkpoint-400', 'checkpoint-500']);
	});

	it('save_total_limit None (the default): never deletes, whatever --keep says', async () => {
		const run = makeTempDir();
		for (const step of [100, 200, 300]) hfCheckpoint(run, save(step));
		const {index: idx} = await index(run, 1);
		expect(idx.retention.groups[0]).toMatchObject({rule: 'HF save_total_limit None: never deletes', keep: null});
		expect(idx.retention.toPrune).toEqual([]);
		expect(idx.checkpoints.map(c => c.retention)).toEqual(['keep', 'keep', 'keep']);
	});

	it("the output dir's training_args.bin (the final save_model) wins over a checkpoint's", async () => {
		const run = makeTempDir();
		for (const step of [100, 200, 300]) hfCheckpoint(run, save(step, {saveTotalLimit: 5}));
		hfFinalModel(run, 2);
		const {scan, index: idx} = await index(run);
		expect(scan.layouts).toEqual(['huggingface']); // model.safetensors and training_args.bin are not checkpoints
		expect(idx.retention.groups[0]).toMatchObject({keep: 2, from: 'training_args.bin save_total_limit'});
		expect(names(idx.retention.toPrune)).toEqual(['checkpoint-100', 'checkpoint-200']);
	});

	it('an unreadable training_args.bin: a warning, and --keep applies', async () => {
		const run = makeTempDir();
		for (const step of [100, 200]) hfCheckpoint(run, save(step));
		put(run, 'checkpoint-200/training_args.bin', 'not a torch file');
		const {index: idx} = await index(run, 1);
		expect(idx.warnings).toContain(
			'checkpoint-200/training_args.bin: save_total_limit not read (neither a torch.save zip nor a pickle): --keep applies',
		);
		expect(idx.retention.groups[0]).toMatchObject({rule: 'HF save_total_limit 1', source: 'flag'});
		expect(names(idx.retention.toPrune)).toEqual(['checkpoint-100', 'checkpoint-200']);
	});

	it("orders by the number in the name, as _save_checkpoint's _rotate_checkpoints(use_mtime=False), not by mtime", async () => {
		const run = makeTempDir();
		// A checkpoint of an earlier run in the same output dir: higher number, older mtime. HF keeps it (the newest
		// by number) and deletes the two lower ones.
		hfCheckpoint(run, save(1000, {time: T0, saveTotalLimit: 2}));
		hfCheckpoint(run, save(100, {time: T0 + 10 * MIN, saveTotalLimit: 2}));
		hfCheckpoint(run, save(200, {time: T0 + 20 * MIN, saveTotalLimit: 2}));
		const byNumber = (await index(run)).index;
		expect(names(byNumber.retention.toPrune)).toEqual(['checkpoint-100', 'checkpoint-200']);
	});

	it('HF with DeepSpeed (global_step<N>/ and latest inside checkpoint-N) is one HF checkpoint', async () => {
		const run = makeTempDir();
		hfCheckpoint(run, save(100, {deepspeed: true, saveTotalLimit: 2}));
		hfCheckpoint(run, save(200, {deepspeed: true, saveTotalLimit: 2}));
		const {scan, index: idx} = await index(run);
		expect(scan.layouts).toEqual(['huggingface']);
		expect(idx.checkpoints.map(c => [c.name, c.status])).toEqual([
			['checkpoint-100', 'complete'],
			['checkpoint-200', 'complete'],
		]);
		expect(names(idx.retention.toPrune)).toEqual(['checkpoint-100']);
	});
});

describe('Hugging Face Trainer partial saves', () => {
	it.each(['model', 'optimizer', 'rng'] as const)(
		'stopped after the %s: no trainer_state.json; still counted and pruned by the rotation',
		async stopAfter => {
			const run = makeTempDir();
			hfCheckpoint(run, save(100, {stopAfter, saveTotalLimit: 3}));
			hfCheckpoint(run, save(200, {saveTotalLimit: 3}));
			hfCheckpoint(run, save(300, {saveTotalLimit: 3}));
			const {index: idx} = await index(run);
			expect(idx.checkpoints[0]).toMatchObject({
				name: 'checkpoint-100',
				status: 'partial',
				epoch: null,
				warnings: ['no trainer_state.json (written last): the save did not finish'],
				retention: 'prune-next',
			});
			expect(idx.retention.groups[0]).toMatchObject({count: 3, toPrune: [path.join(run, 'checkpoint-100')]});
		},
	);

	it('trainer_state.json cut short mid-write (small: does not parse)', async () => {
		const run = makeTempDir();
		hfCheckpoint(run, save(100, {stopAfter: 'state-cut'}));
		const {index: idx} = await index(run);
		expect(idx.checkpoints[0]?.status).toBe('partial');
		expect(idx.checkpoints[0]?.warnings).toEqual([
			expect.stringMatching(/^trainer_state\.json does not parse as JSON \(.*\): its write was cut short$/),
		]);
	});

	it('a large trainer_state.json is read at its ends: whole, or cut short', async () => {
		const run = makeTempDir();
		const best = 'out/checkpoint-100';
		hfCheckpoint(run, save(100, {best, padHistory: 4000}));
		hfCheckpoint(run, save(200, {best, padHistory: 4000, stopAfter: 'state-cut'}));
		const {index: idx} = await index(run);
		expect(idx.checkpoints.map(c => [c.name, c.epoch, c.loss, c.status, c.kind, c.warnings])).toEqual([
			['checkpoint-100', 1, 1, 'complete', 'best', []],
			[
				'checkpoint-200',
				null,
				null,
				'partial',
				'periodic',
				['trainer_state.json ends mid-JSON: its write was cut short'],
			],
		]);
	});

	it('JIT (SIGTERM) save: its sentinel left behind is partial and emergency; removed, complete', async () => {
		const run = makeTempDir();
		hfCheckpoint(run, save(100, {jit: 'finished'}));
		hfCheckpoint(run, save(150, {jit: 'cut off', stopAfter: 'optimizer'}));
		const {index: idx} = await index(run);
		expect(idx.checkpoints.map(c => [c.name, c.status, c.kind])).toEqual([
			['checkpoint-100', 'complete', 'periodic'],
			['checkpoint-150', 'partial', 'emergency'],
		]);
		expect(idx.checkpoints[1]?.warnings).toEqual([
			'no trainer_state.json (written last): the save did not finish',
			'checkpoint-is-incomplete.txt present: a just-in-time (SIGTERM) save is in progress or was cut off',
		]);
	});

	it('tmp-checkpoint-<N> staging dir: partial, outside the rotation (its glob is checkpoint-*)', async () => {
		const run = makeTempDir();
		hfCheckpoint(run, save(100, {saveTotalLimit: 1}));
		hfStaging(run, 200, T0 + 200 * MIN);
		const {scan, index: idx} = await index(run);
		expect(scan.layouts).toEqual(['huggingface']);
		expect(idx.checkpoints.map(c => [c.name, c.step, c.status, c.kind, c.retention])).toEqual([
			['checkpoint-100', 100, 'complete', 'periodic', 'prune-next'],
			['tmp-checkpoint-200', 200, 'partial', 'periodic', 'keep'],
		]);
		expect(idx.checkpoints[1]?.warnings).toEqual([
			'staging directory (tmp-checkpoint-*): never renamed, so the save did not finish',
		]);
		expect(idx.retention.groups[0]).toMatchObject({count: 1, rule: 'HF save_total_limit 1'});
	});
});

describe('training_args.bin save_total_limit', () => {
	/** save_total_limit as read from a torch.save file, in Python's words; or why it was not read. */
	async function limitIn(file: string): Promise<string> {
		const read = await readTorchFile(FS_IO, file);
		return read.status === 'ok' ? pyRepr(attr(read.root, 'save_total_limit')) : read.why;
	}

	it.each([
		{limit: null, want: 'None'},
		{limit: 3, want: '3'}, // BININT1
		{limit: 300, want: '300'}, // BININT2
		{limit: 70000, want: '70000'}, // BININT
		{limit: -1, want: '-1'}, // BININT, negative: HF never deletes
	])('torch.save zip, save_total_limit $limit', async ({limit, want}) => {
		const file = put(makeTempDir(), 'training_args.bin', trainingArgsBin(limit));
		expect(await limitIn(file)).toBe(want);
	});

	it('a legacy (pre-zip) torch.save file is a run of pickles; a pickle without the key says so', async () => {
		const dir = makeTempDir();
		// torch/serialization.py _legacy_save: MAGIC_NUMBER, PROTOCOL_VERSION, sys_info, the object, the storage keys.
		const magic = Buffer.from([
			0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e,
		]);
		const protocol = Buffer.from([0x80, 0x02, 0x4d, 0xe9, 0x03, 0x2e]);
		const sysInfo = Buffer.from([0x80, 0x02, 0x7d, 0x2e]);
		const keys = Buffer.from([0x80, 0x02, 0x5d, 0x2e]);
		const legacySave = (fields: Array<[string, number]>) =>
			Buffer.concat([
				magic,
				protocol,
				sysInfo,
				pickleObject('transformers.training_args', 'TrainingArguments', fields),
				keys,
			]);
		const legacy = put(
			dir,
			'legacy.bin',
			legacySave([
				['save_steps', 500],
				['save_total_limit', 4],
			]),
		);
		expect(await limitIn(legacy)).toBe('4');
		const without = put(dir, 'without.bin', legacySave([['save_steps', 500]]));
		expect(await limitIn(without)).toBe('?');
	});

	it('save_total_limit 0 or negative: _rotate_checkpoints returns early, never deletes', async () => {
		const run = makeTempDir();
		for (const step of [100, 200]) hfCheckpoint(run, save(step, {saveTotalLimit: -1}));
		const {index: idx} = await index(run, 1);
		expect(idx.retention.groups[0]).toMatchObject({rule: 'HF save_total_limit None: never deletes', keep: null});
		expect(idx.retention.toPrune).toEqual([]);
	});
});

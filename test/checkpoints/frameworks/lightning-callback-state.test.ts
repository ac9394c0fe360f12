import {describe, expect, it} from 'vitest';
import {
	declareFromCheckpoint,
	type CheckpointCallbackState,
	type LightningCheckpointRead,
	type ReadContext,
} from '../../../src/checkpoints/layouts/lightning-callback-state.js';

// save_top_k inferred from the ModelCheckpoint state Lightning 2.6.6 pickles in each .ckpt. The states below are the
// ones read from the real trees in test/fixtures/frameworks (paths as the GPU node wrote them); the variations after
// them follow _update_best_and_save and _save_none_monitor_checkpoint (model_checkpoint.py) step by step.

const TOPK2_DIR = '/tmp/ttfx/trees/lightning-topk2/lightning_logs/version_0/checkpoints';
const TOPK2_KEY =
	"ModelCheckpoint{'monitor': 'train_loss', 'mode': 'min', 'every_n_train_steps': 10, 'every_n_epochs': 0, 'train_time_interval': None}";
const DEFAULT_KEY =
	"ModelCheckpoint{'monitor': None, 'mode': 'min', 'every_n_train_steps': 0, 'every_n_epochs': 1, 'train_time_interval': None}";
const TIME_KEY =
	"ModelCheckpoint{'monitor': None, 'mode': 'min', 'every_n_train_steps': 0, 'every_n_epochs': 0, 'train_time_interval': datetime.timedelta(seconds=1)}";

/** lightning-topk2's epoch=2-step=60.ckpt: top-2 by train_loss, the kth best (worst kept) is step 60. */
function topk2State(entries = 2, kth = true): CheckpointCallbackState {
	const bestKModels = [
		{path: `${TOPK2_DIR}/epoch=1-step=40.ckpt`, score: 0.25},
		{path: `${TOPK2_DIR}/epoch=2-step=60.ckpt`, score: 0.5},
		{path: `${TOPK2_DIR}/epoch=0-step=20.ckpt`, score: 0.75},
	].slice(0, entries);
	return {
		dirpath: TOPK2_DIR,
		bestModelPath: `${TOPK2_DIR}/epoch=1-step=40.ckpt`,
		kthBestModelPath: kth ? (bestKModels.at(-1)?.path ?? '') : '',
		lastModelPath: `${TOPK2_DIR}/last.ckpt`,
		bestKModels,
	};
}

function context(dirPath: string, dirRel: string, periodicNames: string[], file = 'epoch=2-step=60.ckpt'): ReadContext {
	return {file: dirRel === '' ? file : `${dirRel}/${file}`, dirPath, dirRel, periodicNames};
}

const HERE = context('/home/me/run/lightning_logs/version_0/checkpoints', 'lightning_logs/version_0/checkpoints', [
	'epoch=1-step=40.ckpt',
	'epoch=2-step=60.ckpt',
]);

function read(key: string, state: CheckpointCallbackState, globalStep: number, epoch: number): LightningCheckpointRead {
	return {globalStep, epoch, callbacks: [[key, state]]};
}

describe('ModelCheckpoint state → what it declares (lightning 2.6.6)', () => {
	it('lightning-topk2: 2 entries after 6 saves every 10 steps is top-2 (inferred), with monitor, mode and cadence', () => {
		const declared = declareFromCheckpoint(read(TOPK2_KEY, topk2State(), 60, 2), HERE);
		expect(declared).toMatchObject({
			declared: {
				keep: 2,
				keepInferred: true,
				monitor: {name: 'train_loss', mode: 'min', modeFrom: 'epoch=2-step=60.ckpt state key'},
				cadence: {everySteps: 10, everyEpochs: null, everySeconds: null},
				from: 'lightning_logs/version_0/checkpoints/epoch=2-step=60.ckpt best_k_models (save_top_k 2, inferred)',
			},
			monitorNone: false,
		});
		if (declared === null || 'problem' in declared) throw new Error('no declaration');
		expect(Object.fromEntries(declared.scores)).toEqual({'epoch=1-step=40.ckpt': 0.25, 'epoch=2-step=60.ckpt': 0.5});
		const facts = Object.fromEntries((declared.declared.facts ?? []).map(f => [f.key, f.value]));
		expect(facts).toMatchObject({
			monitor: "'train_loss'",
			every_n_train_steps: '10',
			best_k_models: 'epoch=1-step=40.ckpt 0.25, epoch=2-step=60.ckpt 0.5',
			kth_best_model_path: 'epoch=2-step=60.ckpt',
			last_model_path: 'last.ckpt',
			'saves made': '6',
			save_top_k: '2',
		});
		expect(declared.declared.facts?.find(f => f.key === 'save_top_k')).toMatchObject({
			inferred: true,
			from: 'lightning_logs/version_0/checkpoints/epoch=2-step=60.ckpt',
		});
	});

	it('as many entries as saves made is "at least N", not a keep-N; no kth yet is "more than N"', () => {
		const atLeast = declareFromCheckpoint(read(TOPK2_KEY, topk2State(2), 20, 0), HERE);
		expect(atLeast).toMatchObject({declared: {keep: null, from: expect.stringContaining('save_top_k ≥ 2')}});
		const filling = declareFromCheckpoint(read(TOPK2_KEY, topk2State(2, false), 60, 2), HERE);
		expect(filling).toMatchObject({declared: {keep: null, from: expect.stringContaining('save_top_k > 2')}});
	});

	it('recorded/lightning-default: monitor None, one file after 3 epoch saves keeps one; one save made says nothing', () => {
		const dir = '/tmp/trees/lightning-default/lightning_logs/version_0/checkpoints';
		const state = {
			dirpath: dir,
			bestModelPath: `${dir}/epoch=2-step=60.ckpt`,
			kthBestModelPath: '',
			lastModelPath: '',
			bestKModels: [],
		};
		const here = context('/x/lightning_logs/version_0/checkpoints', 'lightning_logs/version_0/checkpoints', [
			'epoch=2-step=60.ckpt',
		]);
		expect(declareFromCheckpoint(read(DEFAULT_KEY, state, 60, 2), here)).toMatchObject({
			declared: {keep: 1, keepInferred: true, monitor: null, cadence: {everyEpochs: 1, everySteps: null}},
			monitorNone: true,
		});
		const first = {...state, bestModelPath: `${dir}/epoch=0-step=20.ckpt`};
		const onlyOne = context(here.dirPath, here.dirRel, ['epoch=0-step=20.ckpt'], 'epoch=0-step=20.ckpt');
		expect(declareFromCheckpoint(read(DEFAULT_KEY, first, 20, 0), onlyOne)).toMatchObject({
			declared: {keep: null, from: expect.stringContaining('save_top_k 1 or -1')},
		});
	});

	it('recorded/lightning-time-interval: monitor None with four saves kept is save_top_k -1, every 1 s', () => {
		const dir = '/tmp/trees/lightning-time-interval/lightning_logs/version_0/checkpoints';
		const names = ['epoch=0-step=13.ckpt', 'epoch=1-step=32.ckpt', 'epoch=2-step=51.ckpt', 'epoch=3-step=70.ckpt'];
		const state = {
			dirpath: dir,
			bestModelPath: `${dir}/${names[3]}`,
			kthBestModelPath: '',
			lastModelPath: '',
			bestKModels: [],
		};
		const here = context(
			'/y/lightning_logs/version_0/checkpoints',
			'lightning_logs/version_0/checkpoints',
			names,
			names[3],
		);
		expect(declareFromCheckpoint(read(TIME_KEY, state, 70, 3), here)).toMatchObject({
			declared: {keep: 'all', cadence: {everySeconds: 1, everySteps: null, everyEpochs: null}},
		});
	});

	it('picks the callback whose dirpath is this directory; none there is no declaration; two there is a problem', () => {
		const other = {...topk2State(), dirpath: '/elsewhere/ckpts'};
		const otherKey = TOPK2_KEY.replace("'train_loss'", "'val_acc'");
		const both = {
			globalStep: 60,
			epoch: 2,
			callbacks: [[otherKey, other] as const, [TOPK2_KEY, topk2State()] as const],
		};
		expect(declareFromCheckpoint(both, HERE)).toMatchObject({declared: {monitor: {name: 'train_loss'}}});
		// The run dir is the checkpoint dir itself (scanned as RUN/ckpts): its last name matches.
		const ckpts = context('/z/ckpts', '', ['epoch=2-step=60.ckpt']);
		expect(declareFromCheckpoint(read(TOPK2_KEY, other, 60, 2), ckpts)).toMatchObject({declared: {keep: 2}});
		expect(declareFromCheckpoint(read(TOPK2_KEY, other, 60, 2), HERE)).toBeNull();
		const twice = {...both, callbacks: [[otherKey, topk2State()] as const, [TOPK2_KEY, topk2State()] as const]};
		expect(declareFromCheckpoint(twice, HERE)).toEqual({
			problem:
				'lightning_logs/version_0/checkpoints/epoch=2-step=60.ckpt: 2 ModelCheckpoint callbacks save to this directory: cannot tell which one wrote which checkpoint',
		});
	});

	it('ignores callback states whose key is not a ModelCheckpoint one', () => {
		const early = "EarlyStopping{'monitor': 'val_loss', 'mode': 'min'}";
		expect(declareFromCheckpoint({globalStep: 1, epoch: 0, callbacks: [[early, topk2State()]]}, HERE)).toBeNull();
	});
});

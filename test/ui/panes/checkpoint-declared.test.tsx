import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import CheckpointsPane from '../../../src/ui/panes/CheckpointsPane.js';
import {declaredLines} from '../../../src/format/checkpoints.js';
import type {CheckpointIndex, RetentionGroup} from '../../../src/core/types.js';
import {expectFits, NOW, seedPlusHf} from '../fixtures.js';

// The checkpoints pane's rule line says where keep came from ("inferred from" when it was worked out, not read) and,
// wide, the cadence the run's files declare; `traintop checkpoints` lists every fact (checkpoints-format).

afterEach(cleanup);

const HF: RetentionGroup = {
	key: 'huggingface:',
	layout: 'huggingface',
	framework: 'Hugging Face Trainer',
	dir: '',
	rule: 'HF save_total_limit 2',
	keep: 2,
	source: 'metadata',
	from: 'checkpoint-50/training_args.bin save_total_limit',
	count: 2,
	toPrune: ['/runs/exp1/checkpoint-40'],
	facts: [{key: 'save_total_limit', value: '2', from: 'checkpoint-50/training_args.bin'}],
	cadence: {everySteps: 10, everyEpochs: null, everySeconds: null, from: 'checkpoint-50/trainer_state.json save_steps'},
};

/** Two HF checkpoints and the seed fixture's, so that the pane heads each group. */
const index = (group: RetentionGroup): CheckpointIndex => seedPlusHf(group, [40, 50]);

describe('declared settings in the checkpoints pane', () => {
	test('wide: the rule, the file keep was read from, the declared cadence', () => {
		const {lastFrame} = render(<CheckpointsPane index={index(HF)} now={NOW} width={120} height={12} />);
		const lines = expectFits(lastFrame(), 120, 12);
		expect(lines[1]).toBe(
			'Hugging Face Trainer · HF save_total_limit 2 (checkpoint-50/training_args.bin) · every 10 steps',
		);
	});

	test('keep worked out from other facts says "inferred from"; narrow: the rule alone', () => {
		const inferred: RetentionGroup = {
			...HF,
			rule: 'Lightning top-2 by train_loss (min)',
			framework: 'PyTorch Lightning',
			from: 'epoch=0-step=50.ckpt best_k_models',
			keepInferred: true,
			cadence: {everySteps: null, everyEpochs: 1, everySeconds: null, from: 'epoch=0-step=50.ckpt every_n_epochs'},
		};
		const wide = render(<CheckpointsPane index={index(inferred)} now={NOW} width={120} height={12} />);
		expect(expectFits(wide.lastFrame(), 120, 12)[1]).toBe(
			'PyTorch Lightning · Lightning top-2 by train_loss (min) (inferred from epoch=0-step=50.ckpt) · every epoch',
		);
		cleanup();
		const narrow = render(<CheckpointsPane index={index(inferred)} now={NOW} width={80} height={12} compact />);
		expect(expectFits(narrow.lastFrame(), 80, 12)[1]).toBe('Lightning top-2 by train_loss (min)');
	});
});

describe('declared settings in `traintop checkpoints`', () => {
	test('grouped by the file they came from, inferred ones marked, the cadence with where', () => {
		const group: RetentionGroup = {
			...HF,
			facts: [
				{key: 'best_k_models', value: '2 entries', from: 'ckpts/last.ckpt'},
				{key: 'save_top_k', value: '2', from: 'ckpts/last.ckpt', inferred: true},
				{key: 'train_time_interval', value: '0:00:30', from: 'ckpts/last.ckpt'},
				{key: 'global_step', value: '50', from: 'ckpts/other.ckpt'},
			],
			cadence: {everySteps: null, everyEpochs: null, everySeconds: 30, from: 'ckpts/last.ckpt train_time_interval'},
		};
		expect(declaredLines(group)).toEqual([
			'declared: best_k_models 2 entries, save_top_k 2 (inferred), train_time_interval 0:00:30 (ckpts/last.ckpt); global_step 50 (ckpts/other.ckpt)',
			'declared cadence: every 30 s (ckpts/last.ckpt train_time_interval)',
		]);
		expect(declaredLines({...HF, facts: undefined, cadence: undefined})).toEqual([]);
	});
});

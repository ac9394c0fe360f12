import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import CheckpointsPane, {checkpointsNeed} from '../../../src/ui/panes/CheckpointsPane.js';
import {paneItems} from '../../../src/ui/panes/checkpoint-sections.js';
import type {CheckpointIndex, RetentionGroup} from '../../../src/core/types.js';
import {checkpointIndex, expectFits, frameLines, NOW, seedPlusHf} from '../fixtures.js';

afterEach(cleanup);

const HF: RetentionGroup = {
	key: 'huggingface:',
	layout: 'huggingface',
	framework: 'Hugging Face Trainer',
	dir: '',
	rule: 'HF save_total_limit 2, best protected',
	keep: 2,
	source: 'metadata',
	from: 'training_args.bin save_total_limit',
	count: 2,
	toPrune: ['/runs/exp1/checkpoint-200'],
};

/** The seed fixture's five checkpoints plus two HF checkpoints in the run dir, the newest save an HF one. */
function twoGroups(): CheckpointIndex {
	return seedPlusHf(HF, [200, 400]);
}

describe('checkpoint groups in the pane', () => {
	test('each group under its framework and rule, the group written to last first, each newest first', () => {
		const items = paneItems(twoGroups(), 20, false);
		expect(
			items.map(item =>
				item.kind === 'group' ? item.group.framework : item.kind === 'row' ? item.checkpoint.name : item.count,
			),
		).toEqual([
			'Hugging Face Trainer',
			'checkpoint-400',
			'checkpoint-200',
			'seed checkpointing',
			'checkpoint_step_1510',
			'checkpoint_step_1500',
			'checkpoint_step_1200',
			'checkpoint_step_1000',
			'checkpoint_step_500',
		]);
	});

	test('the narrow form heads two groups (to tell them apart), not a lone one', () => {
		const {lastFrame} = render(<CheckpointsPane index={twoGroups()} now={NOW} width={80} height={12} compact />);
		const lines = expectFits(lastFrame(), 80, 12);
		expect(lines[1]).toBe('HF save_total_limit 2, best protected');
		expect(lines[2]).toMatch(/^step +400 .* periodic$/);
		expect(lines[3]).toMatch(/^step +200 .*PRUNE NEXT$/);
		// Where each group was found, before its rule: two groups of one framework in two directories read apart.
		expect(lines[4]).toBe('checkpoints/ · seed max_checkpoints 3');
		expect(checkpointsNeed(twoGroups(), false, true)).toEqual({min: 2, want: 1 + 2 + 7});
		expect(checkpointsNeed(checkpointIndex(), false, true)).toEqual({min: 2, want: 6});
		expect(checkpointsNeed(checkpointIndex(), false, false)).toEqual({min: 2, want: 7});
	});

	test('cut short: no heading without a row under it, and "+N older" counts checkpoints, not headings', () => {
		// 5 rows: HF heading, two HF rows, then the seed heading would be last with nothing under it.
		const items = paneItems(twoGroups(), 5, false);
		expect(items.map(item => item.kind)).toEqual(['group', 'row', 'row', 'older']);
		expect(items.at(-1)).toEqual({kind: 'older', count: 5});
	});

	test('below four rows the checkpoints themselves come first: no headings; one row is the newest', () => {
		expect(paneItems(twoGroups(), 3, false).map(item => item.kind)).toEqual(['row', 'row', 'older']);
		expect(paneItems(twoGroups(), 1, false)).toEqual([{kind: 'row', checkpoint: twoGroups().checkpoints.at(-1)}]);
		const wide = render(<CheckpointsPane index={twoGroups()} now={NOW} width={100} height={3} />);
		expect(frameLines(wide.lastFrame()).slice(1)).toEqual([
			expect.stringMatching(/^step +400 .*checkpoint-400$/),
			'+6 older',
		]);
	});
});

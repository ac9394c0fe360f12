import {describe, expect, it} from 'vitest';
import {guessMode, keepAll, keepNewest, topK} from '../../src/checkpoints/rules.js';
import type {ScannedCheckpoint} from '../../src/core/types.js';

// The shared retention rules, on hand-made groups: what the next save deletes, and the rule line.

function ckpt(step: number, fields: Partial<ScannedCheckpoint> = {}): ScannedCheckpoint {
	return {
		path: `/run/ckpt-${step}`,
		name: `ckpt-${step}`,
		layout: 'generic',
		step,
		epoch: null,
		time: step * 1000,
		bytes: 1,
		writeS: null,
		status: 'complete',
		kind: 'periodic',
		loss: null,
		metric: null,
		group: 'generic:',
		warnings: [],
		...fields,
	};
}

const names = (list: readonly ScannedCheckpoint[]): string[] => list.map(c => c.name);
const scored = (step: number, value: number, name = 'val_loss') => ckpt(step, {metric: {name, value}});

describe('keepNewest', () => {
	const rule = keepNewest({framework: 'X', setting: 'max_keep', note: ', last kept'});
	const group = [ckpt(1), ckpt(2), ckpt(3, {status: 'partial'}), ckpt(4), ckpt(5, {kind: 'last'})];

	it('the oldest complete ones beyond N after the next save; last and best outside it', () => {
		const plan = rule({checkpoints: group, keep: 2, monitor: null});
		expect(plan.rule).toBe('X max_keep 2, last kept');
		expect(names(plan.counted)).toEqual(['ckpt-1', 'ckpt-2', 'ckpt-4']);
		expect(names(plan.toPrune)).toEqual(['ckpt-1', 'ckpt-2']);
		expect(names(plan.protected)).toEqual(['ckpt-5']);
	});

	it('keep unknown: nothing planned; keep-all declared: says so, keep null', () => {
		expect(rule({checkpoints: group, keep: null, monitor: null})).toMatchObject({
			rule: 'X max_keep unknown: keeps all (--keep N)',
			toPrune: [],
		});
		expect(rule({checkpoints: group, keep: null, keepsAll: true, monitor: null})).toMatchObject({
			rule: 'X max_keep: keeps all',
			toPrune: [],
			keep: null,
		});
	});
});

describe('topK', () => {
	const rule = topK({framework: 'L', setting: 'save_top_k'});

	it('min: the highest values go first, not the oldest', () => {
		const group = [scored(1, 0.3), scored(2, 0.9), scored(3, 0.5), scored(4, 0.2)];
		const plan = rule({checkpoints: group, keep: 3, monitor: {name: 'val_loss', mode: 'min', modeFrom: 'config'}});
		expect(plan.rule).toBe('L top-3 by val_loss (min)');
		expect(names(plan.toPrune)).toEqual(['ckpt-2', 'ckpt-3']);
	});

	it('max, inferred from the names: the lowest go first, and the line says the mode was guessed', () => {
		const group = [scored(1, 71, 'val_acc'), scored(2, 65, 'val_acc'), scored(3, 80, 'val_acc')];
		const plan = rule({checkpoints: group, keep: 3, monitor: null});
		expect(plan.rule).toBe('L top-3 by val_acc (max, guessed)');
		expect(names(plan.toPrune)).toEqual(['ckpt-2']);
	});

	it('a metric whose name says neither: nothing planned, keep null', () => {
		const group = [scored(1, 1, 'foo'), scored(2, 2, 'foo')];
		const plan = rule({checkpoints: group, keep: 1, monitor: null});
		expect(plan).toMatchObject({rule: 'L top-1 by foo (mode unknown): cannot tell worst from best', keep: null});
		expect(plan.toPrune).toEqual([]);
	});

	it('no metric in any name (monitor=None): the newest k are kept', () => {
		const plan = rule({checkpoints: [ckpt(1), ckpt(2), ckpt(3)], keep: 1, monitor: null});
		expect(plan.rule).toBe('L save_top_k 1');
		expect(names(plan.toPrune)).toEqual(['ckpt-1', 'ckpt-2', 'ckpt-3']);
	});

	it('k unknown, or keep all declared', () => {
		const group = [scored(1, 0.3), scored(2, 0.9)];
		expect(rule({checkpoints: group, keep: null, monitor: null}).rule).toBe(
			'L top-k by val_loss (min, guessed): save_top_k unknown (--keep N)',
		);
		expect(rule({checkpoints: group, keep: null, keepsAll: true, monitor: null})).toMatchObject({
			rule: 'L save_top_k: keeps all',
			toPrune: [],
		});
	});
});

describe('keepAll and guessMode', () => {
	it('a framework that never deletes plans nothing whatever keep is', () => {
		const plan = keepAll('K never deletes')({checkpoints: [ckpt(1), ckpt(2, {kind: 'best'})], keep: 1, monitor: null});
		expect(plan).toMatchObject({rule: 'K never deletes', toPrune: [], keep: null});
		expect(names(plan.protected)).toEqual(['ckpt-2']);
	});

	it.each([
		['val_loss', 'min'],
		['train/perplexity', 'min'],
		['eval_wer', 'min'],
		['val_acc', 'max'],
		['top1', 'max'],
		['bleu', 'max'],
		['lr', null],
	] as const)('%s → %s', (name, mode) => {
		expect(guessMode(name).mode).toBe(mode);
	});
});

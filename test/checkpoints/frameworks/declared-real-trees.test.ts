import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';

// What the other frameworks' own files declare, on trees the frameworks wrote on a GPU node
// (test/fixtures/frameworks/README.md; versions in recorded/VERSIONS.json).

const RECORDED = path.resolve('test/fixtures/frameworks/recorded');
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);

async function indexOf(tree: string, keep: number | null = null) {
	const scan = await scanRunDir(path.join(RECORDED, tree));
	return {scan, index: buildIndex(scan, {keep, now: NOW, disk: null})};
}

describe('timm 1.0.29: recorded/timm-saver (CheckpointSaver(max_history=3, decreasing=True), no train.py)', () => {
	it('ranks each checkpoint by the metric pickled in it, lower better as model_best shows; max_history unknown', async () => {
		// Before: "no top1 for epoch 3 in summary.csv: not ranked" for epochs 3, 4, 5, ranked by a top1 (max) no file names.
		const {scan, index} = await indexOf('timm-saver');
		expect(index.warnings).toEqual([]);
		const scores = index.checkpoints.filter(c => c.name.startsWith('checkpoint-')).map(c => [c.name, c.metric]);
		expect(scores).toEqual([
			['checkpoint-3.pth.tar', {name: 'metric', value: 0.5}],
			['checkpoint-4.pth.tar', {name: 'metric', value: 0.6}],
			['checkpoint-5.pth.tar', {name: 'metric', value: 0.65}],
		]);
		expect(scan.groups[0]?.declared).toMatchObject({
			keep: null,
			monitor: {name: 'metric', mode: 'min', modeFrom: 'model_best.pth.tar metric 0.5: the lowest kept (inferred)'},
			facts: [
				{key: 'model_best.pth.tar metric', value: '0.5', from: 'model_best.pth.tar'},
				{key: 'decreasing', value: 'True', from: 'model_best.pth.tar', inferred: true},
			],
		});
		expect(index.retention.groups[0]?.rule).toBe('timm top-k by metric (min): max_history unknown (--keep N)');
	});

	it('with --keep 3 the worst kept (0.65, epoch 5) goes next, as the saver deleted the worst before it', async () => {
		const {index} = await indexOf('timm-saver', 3);
		const doomed = index.checkpoints.filter(c => c.retention === 'prune-next').map(c => c.name);
		expect(doomed).toEqual(['checkpoint-5.pth.tar']);
	});
});

describe('frameworks whose files declare no retention: unknown stays unknown', () => {
	// These pin today's (right) answer on the real trees: nothing in them says keep-N or a cadence.
	it.each([
		['orbax-keep3/ckpt', 'orbax-checkpoint 0.12.4, max_to_keep=3', 'Orbax max_to_keep unknown: keeps all (--keep N)'],
		['accelerate-keep3', 'accelerate 1.15.0, total_limit=3', 'Accelerate total_limit unknown: keeps all (--keep N)'],
		['dcp-steps', 'torch 2.11 torch.distributed.checkpoint', 'torchtitan keep_latest_k unknown: keeps all (--keep N)'],
	])('%s (%s)', async (tree, _version, rule) => {
		const {scan, index} = await indexOf(tree);
		expect(scan.groups.map(g => g.declared)).toEqual([null]);
		expect(index.retention.groups.map(g => [g.rule, g.keep, g.source])).toEqual([[rule, null, 'none']]);
	});
});

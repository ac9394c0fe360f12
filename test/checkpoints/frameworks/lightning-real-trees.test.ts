import {cpSync} from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import type {DeclaredRetention} from '../../../src/core/types.js';
import {makeTempDir, removeTempDirs} from '../fixtures.js';
import {cliConfig} from './lightning-fixture.js';

afterEach(removeTempDirs);

// What Lightning 2.6.6's own checkpoints declare, read from trees the framework wrote on a GPU node
// (test/fixtures/frameworks/README.md says how each was made; recorded/VERSIONS.json: lightning 2.6.6, torch 2.11.0).
// Each .ckpt pickles its ModelCheckpoint's state: the retention plan and the facts shown come from there.

const FRAMEWORKS = path.resolve('test/fixtures/frameworks');
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);

async function indexOf(tree: string, keep: number | null = null) {
	const scan = await scanRunDir(path.join(FRAMEWORKS, tree));
	return {scan, index: buildIndex(scan, {keep, now: NOW, disk: null})};
}

const names = (paths: readonly string[]): string[] => paths.map(p => path.basename(p));

function facts(declared: DeclaredRetention | null | undefined): Record<string, string> {
	return Object.fromEntries((declared?.facts ?? []).map(fact => [fact.key, fact.value]));
}

describe('Lightning 2.6.6 trees: what the checkpoints declare', () => {
	it('lightning-topk2 (ModelCheckpoint every_n_train_steps=10, save_top_k=2, monitor train_loss): keep 2 inferred, the kth best goes next', async () => {
		// Before: "Lightning save_top_k unknown: keeps all (--keep N)", nothing planned, no score for either file.
		const {scan, index} = await indexOf('lightning-topk2');
		const [group] = index.retention.groups;
		expect(group).toMatchObject({
			dir: 'lightning_logs/version_0/checkpoints',
			keep: 2,
			source: 'metadata',
			keepInferred: true,
			rule: 'Lightning top-2 by train_loss (min)',
		});
		// kth_best_model_path in the checkpoint: the worse of the two kept, deleted by the next better save.
		expect(names(group?.toPrune ?? [])).toEqual(['epoch=2-step=60.ckpt']);
		const declared = scan.groups[0]?.declared;
		expect(declared).toMatchObject({
			keep: 2,
			keepInferred: true,
			monitor: {name: 'train_loss', mode: 'min', modeFrom: 'last.ckpt state key'},
			cadence: {everySteps: 10, everyEpochs: null, everySeconds: null},
		});
		// last.ckpt (a full copy, save_last=True) is the furthest save: global_step 70, 7 checks, 2 kept.
		expect(facts(declared)).toMatchObject({
			'pytorch-lightning_version': "'2.6.6'",
			monitor: "'train_loss'",
			kth_value: '1.10774',
			best_model_score: '1.0997',
			current_score: '1.10774',
			best_k_models: 'epoch=1-step=40.ckpt 1.0997, epoch=2-step=60.ckpt 1.10774',
			mode: "'min'",
			train_time_interval: 'None',
			kth_best_model_path: 'epoch=2-step=60.ckpt',
			best_model_path: 'epoch=1-step=40.ckpt',
			last_model_path: 'last.ckpt',
			'saves made': '7',
			save_top_k: '2',
		});
		expect(declared?.facts?.find(f => f.key === 'save_top_k')).toEqual({
			key: 'save_top_k',
			value: '2',
			from: 'lightning_logs/version_0/checkpoints/last.ckpt',
			inferred: true,
		});
		const scores = Object.fromEntries(index.checkpoints.map(c => [c.name, c.metric?.value ?? null]));
		expect(scores['epoch=1-step=40.ckpt']).toBeCloseTo(1.0997, 4);
		expect(scores['epoch=2-step=60.ckpt']).toBeCloseTo(1.1077, 4);
		// last.ckpt is a full copy (save_last=True) whose name says neither: its pickle's global_step and epoch.
		expect(index.checkpoints.find(c => c.name === 'last.ckpt')).toMatchObject({step: 70, epoch: 3, kind: 'last'});
		expect(index.warnings).toEqual([]);
	});

	it('recorded/lightning-default (Trainer(max_epochs=3), the default callback): keeps one, the next save replaces it', async () => {
		// Before: "Lightning save_top_k unknown: keeps all (--keep N)".
		const {scan, index} = await indexOf('recorded/lightning-default');
		const [group] = index.retention.groups;
		expect(group).toMatchObject({
			keep: 1,
			source: 'metadata',
			rule: 'Lightning save_top_k 1, no monitor: each save replaces the last',
		});
		expect(names(group?.toPrune ?? [])).toEqual(['epoch=2-step=60.ckpt']);
		expect(scan.groups[0]?.declared).toMatchObject({
			keep: 1,
			keepInferred: true,
			monitor: null,
			cadence: {everySteps: null, everyEpochs: 1, everySeconds: null},
		});
		// kth_value is the initial torch.tensor(inf) of mode min: no top-k ever ran.
		expect(facts(scan.groups[0]?.declared)).toMatchObject({
			monitor: 'None',
			best_k_models: '{}',
			kth_value: 'inf',
			best_model_path: 'epoch=2-step=60.ckpt',
			'saves made': '3',
			save_top_k: '1',
		});
	});

	it('recorded/lightning-dirpath-keep3/ckpts (dirpath=RUN/ckpts, top-3 by step, max): keep 3 inferred, step=50 next', async () => {
		// The checkpoint dir scanned as the run dir: its dirpath's last name is this directory's.
		const {scan, index} = await indexOf('recorded/lightning-dirpath-keep3/ckpts');
		const [group] = index.retention.groups;
		expect(group).toMatchObject({
			keep: 3,
			rule: 'Lightning top-3 by step (max)',
		});
		expect(names(group?.toPrune ?? [])).toEqual(['step=50.ckpt']);
		expect(index.checkpoints.map(c => [c.name, c.kind, c.metric?.value ?? null, c.retention])).toEqual([
			['step=50.ckpt', 'periodic', 50, 'prune-next'],
			['step=60.ckpt', 'periodic', 60, 'keep'],
			['last.ckpt', 'last', null, 'protected'],
			['step=70.ckpt', 'periodic', 70, 'keep'],
		]);
		expect(facts(scan.groups[0]?.declared)).toMatchObject({kth_best_model_path: 'step=50.ckpt', save_top_k: '3'});
		// last.ckpt links to step=70.ckpt, whose name says no epoch: its pickle does.
		expect(index.checkpoints.find(c => c.name === 'last.ckpt')).toMatchObject({step: 70, epoch: 3});
	});

	it('recorded/lightning-time-interval (train_time_interval=1 s, save_top_k=-1): keeps all, every 1 s', async () => {
		// Before: "Lightning save_top_k unknown: keeps all (--keep N)" (unknown, not declared).
		const {scan, index} = await indexOf('recorded/lightning-time-interval');
		expect(index.retention.groups[0]).toMatchObject({
			keep: null,
			source: 'metadata',
			rule: 'Lightning save_top_k -1: keeps all',
			toPrune: [],
		});
		expect(scan.groups[0]?.declared).toMatchObject({
			keep: 'all',
			cadence: {everySteps: null, everyEpochs: null, everySeconds: 1},
		});
		expect(facts(scan.groups[0]?.declared)).toMatchObject({
			train_time_interval: 'datetime.timedelta(seconds=1)',
			'saves made': 'unknown (time cadence)',
			save_top_k: '-1',
		});
	});

	it('recorded/lightning-hpc-sigusr1: hpc_ckpt_1.ckpt is a manual save outside the top-k; the epoch saves keep one', async () => {
		const {scan, index} = await indexOf('recorded/lightning-hpc-sigusr1');
		// hpc_ckpt_1.ckpt's name has no step: its pickle's global_step (SIGUSR1 came at step 12) and epoch are read.
		const rows = Object.fromEntries(index.checkpoints.map(c => [c.name, [c.kind, c.step, c.epoch, c.retention]]));
		expect(rows).toEqual({
			'epoch=1-step=30.ckpt': ['periodic', 30, 1, 'prune-next'],
			'hpc_ckpt_1.ckpt': ['manual', 12, 0, 'protected'],
		});
		const rules = Object.fromEntries(index.retention.groups.map(g => [g.dir, g.rule]));
		expect(rules).toEqual({
			'': 'Lightning last, hpc and exception saves: outside the top-k, never deleted by it',
			'lightning_logs/version_4242/checkpoints': 'Lightning save_top_k 1, no monitor: each save replaces the last',
		});
		// hpc_ckpt_1.ckpt's callback state speaks for lightning_logs/version_4242/checkpoints, not the root dir.
		expect(scan.groups.find(g => g.dir === '')?.declared ?? null).toBeNull();
	});

	it('lightning-topk2 with a LightningCLI config.yaml naming save_top_k: the setting read wins, the checkpoint adds the rest', async () => {
		const run = makeTempDir();
		cpSync(path.join(FRAMEWORKS, 'lightning-topk2'), run, {recursive: true});
		cliConfig(run, {monitor: 'train_loss', mode: 'min', save_top_k: 2});
		const scan = await scanRunDir(run);
		const index = buildIndex(scan, {keep: null, now: NOW, disk: null});
		expect(index.retention.groups[0]).toMatchObject({
			keep: 2,
			rule: 'Lightning top-2 by train_loss (min)',
			from: 'lightning_logs/version_0/config.yaml save_top_k',
		});
		expect(names(index.retention.groups[0]?.toPrune ?? [])).toEqual(['epoch=2-step=60.ckpt']);
		expect(scan.groups[0]?.declared).toMatchObject({
			keepInferred: false,
			monitor: {name: 'train_loss', mode: 'min', modeFrom: 'last.ckpt state key'},
			cadence: {everySteps: 10},
		});
	});
});

import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {buildIndex} from '../../../src/checkpoints/retention.js';
import {scanRunDir} from '../../../src/checkpoints/scan.js';
import {link, makeTempDir, removeTempDirs} from '../fixtures.js';
import {
	COMPOSER_FOLDER,
	composerLatest,
	composerRun,
	composerSave,
	composerShardedSave,
	composerTarSave,
	type ComposerSave,
} from './composer-fixture.js';

// MosaicML Composer's CheckpointSaver: ep{epoch}-ba{batch}-rank0.pt saves, a latest-rank0.pt symlink to the newest,
// and (num_checkpoints_to_keep ≥ 0) the oldest saves deleted after each save.

afterEach(removeTempDirs);

const T0 = Date.UTC(2026, 2, 1, 8, 0, 0);
const MIN = 60_000;
const SAVES: ComposerSave[] = [1, 2, 3, 4].map(epoch => ({epoch, batch: epoch * 100, time: T0 + epoch * MIN}));

function at(run: string, name: string): string {
	return path.join(run, COMPOSER_FOLDER, name);
}

async function indexOf(run: string, keep: number | null) {
	const scan = await scanRunDir(run);
	return {scan, index: buildIndex(scan, {keep, now: T0 + 60 * MIN, disk: null})};
}

describe('Composer layout: names, kinds, latest symlink', () => {
	it('reads epoch and batch from ep{epoch}-ba{batch}-rank0.pt; latest-rank0.pt is the last, with its target’s step', async () => {
		const run = makeTempDir();
		composerRun(run, SAVES.slice(0, 3), -1);
		const {scan, index} = await indexOf(run, null);
		expect(scan.layouts).toEqual(['composer']);
		expect(scan.checkpoints.map(c => [c.name, c.epoch, c.step, c.kind, c.status])).toEqual([
			['ep1-ba100-rank0.pt', 1, 100, 'periodic', 'complete'],
			['ep2-ba200-rank0.pt', 2, 200, 'periodic', 'complete'],
			['ep3-ba300-rank0.pt', 3, 300, 'periodic', 'complete'],
			['latest-rank0.pt', 3, 300, 'last', 'complete'],
		]);
		expect(index.retention.groups.map(g => [g.dir, g.rule])).toEqual([
			['checkpoints', 'Composer num_checkpoints_to_keep unknown: keeps all (--keep N)'],
		]);
		expect(index.retention.toPrune).toEqual([]);
	});

	it('a sharded save is its ep{epoch}-ba{batch} directory; latest points at the directory', async () => {
		const run = makeTempDir();
		composerShardedSave(run, SAVES[0]!, 2);
		composerShardedSave(run, SAVES[1]!, 2);
		const {scan} = await indexOf(run, null);
		expect(scan.layouts).toEqual(['composer']);
		expect(scan.checkpoints.map(c => [c.name, c.epoch, c.step, c.kind, c.status])).toEqual([
			['ep1-ba100', 1, 100, 'periodic', 'complete'],
			['ep2-ba200', 2, 200, 'periodic', 'complete'],
			['latest-rank0.pt', 2, 200, 'last', 'complete'],
		]);
	});
});

describe('Composer layout: retention', () => {
	it('num_checkpoints_to_keep 2: the next save deletes the oldest kept save, never latest', async () => {
		const run = makeTempDir();
		const kept = composerRun(run, SAVES.slice(0, 3), 2);
		expect(kept).toEqual([at(run, 'ep2-ba200-rank0.pt'), at(run, 'ep3-ba300-rank0.pt')]);
		const {index} = await indexOf(run, 2);
		const group = index.retention.groups[0];
		expect(group).toMatchObject({rule: 'Composer num_checkpoints_to_keep 2', count: 2, source: 'flag'});
		expect(group?.toPrune).toEqual([at(run, 'ep2-ba200-rank0.pt')]);
		const marks = Object.fromEntries(index.checkpoints.map(c => [c.name, c.retention]));
		expect(marks).toEqual({
			'ep2-ba200-rank0.pt': 'prune-next',
			'ep3-ba300-rank0.pt': 'keep',
			'latest-rank0.pt': 'protected',
		});
	});

	it('a save cut short is not counted: the rotation sees only the finished ones', async () => {
		const run = makeTempDir();
		composerRun(run, SAVES.slice(0, 3), -1);
		composerSave(run, SAVES[3]!, {truncateTo: 1500});
		const {index} = await indexOf(run, 2);
		expect(index.retention.groups[0]?.toPrune).toEqual([at(run, 'ep1-ba100-rank0.pt'), at(run, 'ep2-ba200-rank0.pt')]);
	});
});

describe('Composer layout: partial saves, one per way a save can be unfinished', () => {
	async function partials(run: string): Promise<Record<string, readonly string[]>> {
		const {scan} = await indexOf(run, null);
		expect(scan.layouts).toEqual(['composer']);
		return Object.fromEntries(scan.checkpoints.filter(c => c.status === 'partial').map(c => [c.name, c.warnings]));
	}

	it('a .pt whose torch.save zip has no end record', async () => {
		const run = makeTempDir();
		composerSave(run, SAVES[0]!);
		composerSave(run, SAVES[1]!, {truncateTo: 1200});
		expect(await partials(run)).toEqual({'ep2-ba200-rank0.pt': ['truncated: no zip end record']});
	});

	it('an empty .pt', async () => {
		const run = makeTempDir();
		composerSave(run, SAVES[0]!, {truncateTo: 0});
		expect(await partials(run)).toEqual({'ep1-ba100-rank0.pt': ['empty file: the save did not get to write it']});
	});

	it('a sharded directory without .metadata', async () => {
		const run = makeTempDir();
		composerShardedSave(run, SAVES[0]!, 2);
		composerShardedSave(run, SAVES[1]!, 2, false);
		expect(await partials(run)).toEqual({
			'ep2-ba200': ['sharded checkpoint without .metadata: the save did not finish'],
		});
	});

	it('a .tar without its end blocks', async () => {
		const run = makeTempDir();
		composerTarSave(run, SAVES[0]!);
		composerTarSave(run, SAVES[1]!, false);
		expect(await partials(run)).toEqual({'ep2-ba200-rank0.tar': ['truncated: no tar end blocks']});
	});

	it('a latest symlink whose target is gone', async () => {
		const run = makeTempDir();
		composerSave(run, SAVES[0]!);
		composerLatest(run, 'ep9-ba900-rank0.pt');
		expect(await partials(run)).toEqual({
			'latest-rank0.pt': ['dangling symlink to ep9-ba900-rank0.pt: its target is gone'],
		});
	});
});

describe('Composer layout: what it leaves alone', () => {
	it('names outside the ep/ba pattern go to the generic fallback; latest alone is still Composer’s', async () => {
		const run = makeTempDir();
		writeFileSync(path.join(run, 'model_step5.pt'), Buffer.alloc(0));
		link(run, 'latest-rank0.pt', 'model_step5.pt');
		const scan = await scanRunDir(run);
		expect(Object.fromEntries(scan.checkpoints.map(c => [c.name, c.layout]))).toEqual({
			'model_step5.pt': 'generic',
			'latest-rank0.pt': 'composer',
		});
	});
});

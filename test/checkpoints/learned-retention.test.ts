// Retention learned from what the job deleted (src/checkpoints/learned-retention.ts): the pairing of deletions with
// saves, then the recorded timelines of real frameworks replayed into a temp run dir under a real CheckpointWatcher
// with the real scanner, one rescan per poll of the recording (time compressed: the order of writes is what matters).

import {cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {learnedKeep} from '../../src/checkpoints/learned-retention.js';
import {rotationKeepsUsageFlat} from '../../src/checkpoints/retention.js';
import type {GroupChange, HistoryDeletion} from '../../src/checkpoints/save-history.js';
import {CheckpointWatcher} from '../../src/checkpoints/watch.js';
import type {CheckpointIndex, RetentionGroup} from '../../src/core/types.js';

const G = 'g';
/** Long after every change: a deletion left waiting went with the save before it. */
const NOW = 1_000_000;
const RECORDED = path.resolve('test/fixtures/frameworks/recorded');
const RECORDING_T0 = Date.UTC(2026, 0, 1);

const deletion = (oldest = true): HistoryDeletion => ({path: 'x', group: G, at: 0, oldest});
/** A scan `at` seconds in that found `saved` saves and `deleted` deletions, leaving `count`. */
const change = (saved: number, deleted: HistoryDeletion[], count: number, at = 0): GroupChange => ({
	group: G,
	at: at * 1000,
	saved,
	deleted,
	count,
});

describe('learnedKeep: each deletion paired with its save', () => {
	it('save and deletion in one scan, twice, holding 3: keep 3', () => {
		const filling = [change(1, [], 1), change(1, [], 2), change(1, [], 3)];
		expect(learnedKeep([...filling, change(1, [deletion()], 3)], G, 3, NOW)).toBeNull();
		expect(learnedKeep([...filling, change(1, [deletion()], 3), change(1, [deletion()], 3)], G, 3, NOW)).toEqual({
			keep: 3,
			rotations: 2,
		});
	});

	// Saves every 10 s; the fill-up to 3 first.
	const filling = [change(1, [], 1, 10), change(1, [], 2, 20), change(1, [], 3, 30)];

	it('save, then its deletion at the next scan (HF rotates after saving): keep 2 after the second', () => {
		const first = [...filling, change(0, [deletion()], 2, 31)];
		expect(learnedKeep(first, G, 2, NOW)).toBeNull();
		const second = [...first, change(1, [], 3, 40), change(0, [deletion()], 2, 41)];
		expect(learnedKeep(second, G, 2, NOW)).toEqual({keep: 2, rotations: 2});
		// At the second deletion's own scan: back at the count the first rotation left, so it went with its save.
		expect(learnedKeep(second, G, 2, 41_000)).toEqual({keep: 2, rotations: 2});
	});

	it('deletion, then its save at the next scan (Accelerate deletes down to N − 1 first): keep 3 after the second', () => {
		// At the deletion's own scan nothing is decided yet: it may be the last save's rotation or the next one's.
		expect(learnedKeep([...filling, change(0, [deletion()], 2, 39)], G, 2, 39_000)).toBeNull();
		const first = [...filling, change(0, [deletion()], 2, 39), change(1, [], 3, 40)];
		expect(learnedKeep(first, G, 3, NOW)).toBeNull();
		const second = [...first, change(0, [deletion()], 2, 49), change(1, [], 3, 50)];
		expect(learnedKeep(second, G, 3, NOW)).toEqual({keep: 3, rotations: 2});
	});

	it('a deletion that was not of the oldest (top-k drops the worst) teaches nothing', () => {
		expect(learnedKeep([change(1, [deletion(false)], 3), change(1, [deletion(false)], 3)], G, 3, NOW)).toBeNull();
	});

	it('a count that moved between rotations is not steady', () => {
		expect(learnedKeep([change(1, [deletion()], 3), change(1, [deletion()], 4)], G, 4, NOW)).toBeNull();
	});

	it('a job that stopped deleting (two saves more, no deletion) is no longer keeping N', () => {
		const rotating = [change(1, [deletion()], 3), change(1, [deletion()], 3)];
		expect(learnedKeep([...rotating, change(1, [], 4)], G, 4, NOW)).toEqual({keep: 3, rotations: 2});
		expect(learnedKeep([...rotating, change(1, [], 4), change(1, [], 5)], G, 5, NOW)).toBeNull();
	});
});

interface TimelineLine {
	readonly t: number;
	readonly event: 'add' | 'remove';
	readonly path: string;
	readonly kind?: 'dir' | 'file';
}

/** The timeline's lines, one list per poll (the lines of one `t`). */
function polls(name: string): TimelineLine[][] {
	const lines = readFileSync(path.join(RECORDED, `${name}.timeline.jsonl`), 'utf8')
		.split('\n')
		.filter(line => line.trim() !== '')
		.map(line => JSON.parse(line) as TimelineLine);
	const out: TimelineLine[][] = [];
	for (const line of lines) {
		const last = out.at(-1);
		if (last && last[0]!.t === line.t) last.push(line);
		else out.push([line]);
	}
	return out;
}

const tempDirs: string[] = [];
const watchers: CheckpointWatcher[] = [];
afterEach(async () => {
	await Promise.all(watchers.splice(0).map(w => w.stop()));
	for (const dir of tempDirs.splice(0)) rmSync(dir, {recursive: true, force: true});
});

interface Replay {
	/** The main group's retention after each poll, with the deletions the watcher has seen so far (checkpoints gone). */
	readonly steps: {
		readonly deletions: number;
		readonly group: RetentionGroup | undefined;
		readonly index: CheckpointIndex;
	}[];
}

/**
 * Replays a recorded case into a fresh run dir under a CheckpointWatcher: each poll's adds and removes, then a rescan.
 * A file the recording saw that its tree no longer holds (retention deleted it) is written with the bytes of the same
 * file in a surviving checkpoint (`contentFor`); `skip` leaves files out (a case without a declaration).
 */
async function replay(
	name: string,
	options: {
		readonly skip?: (file: string) => boolean;
		readonly contentFor: (file: string) => Buffer;
		/** The recording's directory watched as the run dir (its lines outside it left out). */
		readonly root?: string;
	},
): Promise<Replay> {
	const run = path.join(mkdtempSync(path.join(tmpdir(), 'traintop-replay-')), 'run');
	tempDirs.push(path.dirname(run));
	mkdirSync(run);
	// The watcher's clock is the recording's: each rescan is stamped with the time of its poll, so the distances
	// between saves and deletions are the framework's, whatever this machine's load.
	let recordedS = 0;
	const watcher = new CheckpointWatcher({runDir: run, keep: null, now: () => RECORDING_T0 + recordedS * 1000});
	watchers.push(watcher);
	await watcher.start();
	const steps: Replay['steps'][number][] = [];
	let deletions = 0;
	let complete = new Set<string>();
	for (const poll of polls(name)) {
		recordedS = poll[0]!.t;
		for (const line of poll) {
			const prefix = options.root === undefined ? '' : `${options.root}/`;
			if (!line.path.startsWith(prefix)) continue;
			const target = path.join(run, line.path.slice(prefix.length));
			if (line.event === 'remove') {
				rmSync(target, {recursive: true, force: true});
			} else if (line.kind === 'dir') {
				mkdirSync(target, {recursive: true});
			} else if (!options.skip?.(line.path)) {
				mkdirSync(path.dirname(target), {recursive: true});
				writeFileSync(target, options.contentFor(line.path));
			}
		}
		const index = await watcher.rescan();
		const now = new Set(index.checkpoints.map(c => c.path));
		deletions += [...complete].filter(p => !now.has(p)).length;
		complete = new Set([...complete, ...index.checkpoints.filter(c => c.status === 'complete').map(c => c.path)]);
		for (const p of complete) if (!now.has(p)) complete.delete(p);
		const main = index.retention.groups.find(group => group.count > 0);
		steps.push({deletions, group: main, index});
	}
	return {steps};
}

/** The bytes of `file` in the recorded tree, else of the same file name in the first surviving checkpoint dir. */
function fromTree(tree: string, survivor: string): (file: string) => Buffer {
	return file => {
		const own = path.join(RECORDED, tree, file);
		if (existsSync(own)) return readFileSync(own);
		return readFileSync(path.join(RECORDED, tree, survivor, path.basename(file)));
	};
}

describe('recorded timelines replayed under a real CheckpointWatcher', () => {
	it('accelerate-keep3 (ProjectConfiguration total_limit=3, five save_state()): keep 3 learned at its second deletion', async () => {
		const {steps} = await replay('accelerate-keep3', {
			contentFor: fromTree('accelerate-keep3', 'checkpoints/checkpoint_2'),
		});
		const learnedAt = steps.findIndex(step => step.group?.source === 'learned');
		expect(steps[learnedAt]?.deletions).toBe(2);
		expect(steps.slice(0, learnedAt).every(step => step.group?.source === 'none')).toBe(true);
		const last = steps.at(-1)!;
		expect(last.group).toMatchObject({
			keep: 3,
			source: 'learned',
			rule: 'keeps 3: learned from what the job deleted (its oldest, at each of its last 2 saves)',
		});
		// The next save deletes the oldest of the three, and the disk projection follows the rotation.
		expect(last.group?.toPrune.map(p => path.basename(p))).toEqual(['checkpoint_2']);
		expect(last.index.retention).toMatchObject({keep: 3, source: 'learned'});
		// Not "keeps all … room for ~1096260 saves": the rotation keeps the disk's usage flat.
		expect(rotationKeepsUsageFlat(last.index)).toBe(true);
	});

	it('hf-best (save_total_limit=2, best protected) without training_args.bin: keep 2 learned', async () => {
		// trainer_state.json of the deleted checkpoints is rebuilt from checkpoint-25's with its own global_step, and the
		// best pointing at itself: the metric improved at each evaluation of this run (each newest was the best).
		const base = JSON.parse(readFileSync(path.join(RECORDED, 'hf-best/checkpoint-25/trainer_state.json'), 'utf8'));
		const tree = fromTree('hf-best', 'checkpoint-25');
		const {steps} = await replay('hf-best', {
			skip: file => path.basename(file) === 'training_args.bin',
			contentFor: file => {
				const step = Number(/^checkpoint-(\d+)\//.exec(file)?.[1]);
				if (path.basename(file) !== 'trainer_state.json' || step >= 25) return tree(file);
				const state = {
					...base,
					global_step: step,
					best_global_step: step,
					best_model_checkpoint: `x/checkpoint-${step}`,
				};
				return Buffer.from(JSON.stringify(state, null, 2));
			},
		});
		const learnedAt = steps.findIndex(step => step.group?.source === 'learned');
		expect(learnedAt).toBeGreaterThan(0);
		expect(steps[learnedAt]?.deletions).toBe(2);
		expect(steps.at(-1)?.group).toMatchObject({keep: 2, source: 'learned', count: 2});
		// HF deletes the oldest that is not the best: checkpoint-25, the best (checkpoint-30) protected.
		expect(steps.at(-1)?.group?.toPrune.map(p => path.basename(p))).toEqual(['checkpoint-25']);
	});

	it('orbax-keep3 (CheckpointManager max_to_keep=3, every 2 steps; tmp dirs renamed into place): keep 3 learned', async () => {
		// A step's files under the same path in ckpt/6 (with the tmp suffixes taken off); a data file named by its hash,
		// which differs from step to step, gets a few bytes of its own (the layout reads the metadata, never the data).
		const contentFor = (file: string): Buffer => {
			const own = path.join(RECORDED, 'orbax-keep3', file);
			if (existsSync(own)) return readFileSync(own);
			const rest = file.replace(/^ckpt\/[^/]+\//, '').replace(/\.orbax-checkpoint-tmp[^/]*/g, '');
			const survivor = path.join(RECORDED, 'orbax-keep3/ckpt/6', rest);
			return existsSync(survivor) ? readFileSync(survivor) : Buffer.from('data');
		};
		// ckpt/ is watched as the run dir: finding it below one is another matter (the deeper search).
		const {steps} = await replay('orbax-keep3', {contentFor, root: 'ckpt'});
		const learnedAt = steps.findIndex(step => step.group?.source === 'learned');
		expect(steps[learnedAt]?.deletions).toBe(2);
		expect(steps.at(-1)?.group).toMatchObject({keep: 3, source: 'learned', count: 3});
		expect(steps.at(-1)?.group?.toPrune.map(p => path.basename(p))).toEqual(['6']);
	});

	it('the same Accelerate tree looked at once (no deletion seen): nothing learned', async () => {
		const run = mkdtempSync(path.join(tmpdir(), 'traintop-once-'));
		tempDirs.push(run);
		cpSync(path.join(RECORDED, 'accelerate-keep3'), run, {recursive: true});
		const watcher = new CheckpointWatcher({runDir: run, keep: null});
		watchers.push(watcher);
		await watcher.start();
		expect(watcher.getIndex()?.retention).toMatchObject({keep: null, source: 'none'});
	});
});

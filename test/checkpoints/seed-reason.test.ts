// A seed checkpoint's kind from its metadata's free-text `reason` (src/checkpoints/layouts/save-reason.ts), and the
// scan reading it from real checkpoint_metadata.json files in temp dirs.

import {afterAll, describe, expect, it} from 'vitest';
import {kindFromReason} from '../../src/checkpoints/layouts/save-reason.js';
import {scanRunDir} from '../../src/checkpoints/scan.js';
import type {ScanResult} from '../../src/core/types.js';
import {makeTempDir, put, removeTempDirs, seedCheckpoint, zipArchive} from './fixtures.js';

afterAll(removeTempDirs);

const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const MIN = 60_000;

describe('kindFromReason', () => {
	it.each([
		['SIGTERM', 'emergency'],
		['sigint', 'emergency'],
		['got SIG_TERM from slurm', 'emergency'],
		['TERM', 'emergency'],
		['preemption', 'emergency'],
		['Preempted', 'emergency'],
		['emergency', 'emergency'],
		['requeue', 'emergency'],
		['timeout', 'emergency'],
		['SLURM time limit', 'emergency'],
		['time_limit', 'emergency'],
		['terminated', 'emergency'],
		['KeyboardInterrupt', 'emergency'],
		['signal 15', 'emergency'],
		['signum=2', 'emergency'],
		['signal 10', 'manual'],
		['sig 12', 'manual'],
		['signal 150', 'unknown'],
		['signal', 'unknown'], // which signal it was is traintop's to say (checkpoints/signal-saves.ts)
		['preempted at step 500', 'emergency'], // the emergency word wins over "step"
		['manual', 'manual'],
		['SIGUSR1', 'manual'],
		['usr2', 'manual'],
		['user request', 'manual'],
		['requested', 'manual'],
		['on-demand', 'manual'],
		['USER', 'manual'],
		['manual save on SIGUSR1 at step 100', 'manual'],
		['periodic', 'periodic'],
		['interval', 'periodic'], // holds "int", but not as a word: not SIGINT
		['Scheduled', 'periodic'],
		['every 500 steps', 'periodic'],
		['save_steps', 'periodic'],
		['', 'unknown'],
		['best', 'unknown'],
		['checkpoint', 'unknown'], // "int" inside a word is not SIGINT
		['determined', 'unknown'], // nor "term"
		['end of training', 'unknown'],
	])('%j → %s', (reason, kind) => {
		expect(kindFromReason(reason)).toBe(kind);
	});
});

/** checkpoints/checkpoint_metadata.json with these entries, as a job that records reasons writes it. */
function metadata(run: string, entries: readonly Record<string, unknown>[]): void {
	put(run, 'checkpoints/checkpoint_metadata.json', `${JSON.stringify({checkpoints: entries, max_checkpoints: 5})}\n`);
}

function kinds(result: ScanResult): Record<string, string> {
	return Object.fromEntries(result.checkpoints.map(c => [c.name, c.kind]));
}

describe('seed layout: kind from reason', () => {
	it('reads `reason` when an entry has no valid `kind`; a valid `kind` wins', async () => {
		const run = makeTempDir();
		const saves = [
			{step: 10, reason: 'periodic'},
			{step: 20, reason: 'SIGUSR1'},
			{step: 30, reason: 'SIGTERM'},
			{step: 40, reason: 'user request'},
			{step: 50, reason: 'no idea'},
			{step: 60, kind: 'periodic', reason: 'SIGTERM'}, // both: kind wins
			{step: 70, kind: 'bogus', reason: 'preemption'}, // an invalid kind: the reason decides
			{step: 80, kind: 'manual'},
			{step: 90},
		];
		const entries = saves.map(({step, ...why}, i) => {
			const written = seedCheckpoint(run, {step, epoch: step / 100, kind: 'periodic', time: T0 + i * MIN});
			const {kind: _fromFixture, ...entry} = written.entry;
			return {name: written.name, entry: {...entry, ...why}};
		});
		metadata(
			run,
			entries.map(e => e.entry),
		);

		const result = await scanRunDir(run);
		const byStep = Object.fromEntries(entries.map((e, i) => [saves[i]!.step, kinds(result)[e.name]]));
		expect(byStep).toEqual({
			10: 'periodic',
			20: 'manual',
			30: 'emergency',
			40: 'manual',
			50: 'unknown',
			60: 'periodic',
			70: 'emergency',
			80: 'manual',
			90: 'unknown',
		});
		expect(result.warnings).toEqual([]);
	});

	it('a single-file state.pt takes its kind from a metadata entry beside it that names it', async () => {
		const run = makeTempDir();
		put(run, 'checkpoints/state.pt', zipArchive(200));
		put(run, 'checkpoints/emergency_state.pt', zipArchive(100));
		put(run, 'state.pt', zipArchive(300)); // no metadata beside this one
		metadata(run, [
			{step: 5, timestamp: new Date(T0).toISOString(), checkpoint_path: './checkpoints/state.pt', reason: 'interval'},
			// The newest entry naming the file is the save that last wrote it.
			{
				step: 9,
				timestamp: new Date(T0 + MIN).toISOString(),
				checkpoint_path: './checkpoints/state.pt',
				reason: 'SIGUSR1',
			},
		]);

		const result = await scanRunDir(run);
		const found = result.checkpoints.map(c => [relative(c.path, run), c.kind]);
		expect(found).toEqual(
			expect.arrayContaining([
				['checkpoints/state.pt', 'manual'],
				['checkpoints/emergency_state.pt', 'emergency'], // not named in the metadata: its file name decides
				['state.pt', 'unknown'],
			]),
		);
		expect(found).toHaveLength(3);
	});
});

function relative(absolute: string, run: string): string {
	return absolute.slice(run.length + 1);
}

import {describe, expect, test} from 'vitest';
import type {HostMemory} from '../../src/core/types.js';
import {diskNeed} from '../../src/preflight/disk-need.js';
import {judgeRam, ramBasis} from '../../src/preflight/ram-verdict.js';
import {exitCodeOf} from '../../src/preflight/report.js';
import {checkpoint, checkpointIndex, GIB, MIB} from '../helpers/checkpoint-data.js';

// The verdict rules with numbers worked by hand: RAM after launch against the threshold, its warn line and what is
// available; the disk against the next saves; the exit code.

const host = (total: number, available: number): HostMemory => ({
	ram: {totalBytes: total, usedBytes: total - available, availableBytes: available, percent: 0},
	swap: null,
});
const LINES = {criticalPercent: 85, warnMargin: 10};

describe('RAM', () => {
	test('fits below the warn line, tight from it, will not fit from the threshold or beyond what is available', () => {
		// 100 GiB, 40 used: +30 → 70 % fits; +40 → 80 % tight (warn at 75 %); +45 → 85 % will not fit.
		const basis = ramBasis(host(100 * GIB, 60 * GIB));
		const fits = judgeRam(basis, 30 * GIB, LINES);
		expect(fits).toMatchObject({
			verdict: 'fits',
			afterPercent: 70,
			warnPercent: 75,
			reason: '70.0% after launch, below the warn line at 75%',
		});
		expect(fits.headroomBytes).toBe(15 * GIB);
		expect(fits.roomBytes).toBe(30 * GIB);
		expect(judgeRam(basis, 40 * GIB, LINES)).toMatchObject({
			verdict: 'tight',
			reason: '80.0% after launch, above the warn line at 75%',
		});
		const over = judgeRam(basis, 45 * GIB, LINES);
		expect(over).toMatchObject({
			verdict: 'will_not_fit',
			reason: '85.0% after launch, at or above the 85% RAM threshold',
		});
		expect(over.headroomBytes).toBe(0);
		expect(judgeRam(basis, 61 * GIB, {criticalPercent: 100, warnMargin: 0})).toMatchObject({
			verdict: 'will_not_fit',
			reason: 'the estimate is more than the RAM available now',
			roomBytes: -1 * GIB,
		});
	});

	test('inside a cgroup limit the limit is the total and the room left in it is what is available', () => {
		const memory: HostMemory = {
			...host(512 * GIB, 400 * GIB),
			cgroup: {
				scope: 'traintop',
				version: 2,
				path: '/slurm/job_7',
				limitBytes: 64 * GIB,
				usedBytes: 16 * GIB,
				percent: 25,
			},
		};
		const basis = ramBasis(memory);
		expect(basis).toEqual({
			source: 'cgroup',
			cgroupPath: '/slurm/job_7',
			totalBytes: 64 * GIB,
			usedBytes: 16 * GIB,
			availableBytes: 48 * GIB,
		});
		// 16 + 40 = 56 of 64 GiB = 87.5 %: over the 85 % line although the host has 400 GiB free.
		expect(judgeRam(basis, 40 * GIB, LINES).verdict).toBe('will_not_fit');
		// A host with less free than the cgroup's room: the host's MemAvailable is what there is.
		expect(ramBasis({...memory, ram: host(512 * GIB, 10 * GIB).ram}).availableBytes).toBe(10 * GIB);
	});
});

describe('disk', () => {
	test('keep 3 with 4 kept: room for the one being written; newest is the size of a save', () => {
		// checkpointIndex: 512 MiB checkpoints, keep 3, 4 counted, 20 GiB free.
		const need = diskNeed(checkpointIndex());
		expect(need).toMatchObject({
			status: 'fits',
			checkpointName: 'checkpoint_step_1500',
			checkpointBytes: 512 * MIB,
			saves: 1,
			neededBytes: 512 * MIB,
			rule: 'newest checkpoint 512 MiB × (keep 3 − 4 kept + 1 being written) = 512 MiB',
		});
	});

	test('a run still growing to keep-N needs room for every save until then; too little free will not fit', () => {
		const index = checkpointIndex({
			checkpoints: [checkpoint(100, 30, {bytes: 3 * GIB}), checkpoint(200, 10, {bytes: 4 * GIB})],
			retention: {...checkpointIndex().retention, keep: 5, count: 2},
			disk: {...checkpointIndex().disk, freeBytes: 15 * GIB},
		});
		// 4 GiB × (5 − 2 + 1) = 16 GiB > 15 GiB free.
		expect(diskNeed(index)).toMatchObject({status: 'will_not_fit', saves: 4, neededBytes: 16 * GIB});
	});

	test('no keep-N: the next save; no complete checkpoint or no free space known: unknown', () => {
		const noKeep = checkpointIndex({retention: {...checkpointIndex().retention, keep: null}});
		expect(diskNeed(noKeep)).toMatchObject({
			status: 'fits',
			saves: 1,
			rule: 'newest checkpoint 512 MiB × 1 (no keep-N known: every save adds one; --keep N sets it)',
		});
		const partialOnly = checkpointIndex({checkpoints: [checkpoint(1510, 1, {status: 'partial'})]});
		expect(diskNeed(partialOnly)).toMatchObject({
			status: 'unknown',
			neededBytes: null,
			rule: 'no complete checkpoint yet: the size of a save is not known',
		});
		const noDisk = checkpointIndex({disk: {...checkpointIndex().disk, freeBytes: null}});
		expect(diskNeed(noDisk).status).toBe('unknown');
	});
});

describe('exit code', () => {
	test('4 when it will not fit; tight is 4 only with --fail-on-breach; fits and unknown are 0', () => {
		expect(exitCodeOf('will_not_fit', false)).toBe(4);
		expect(exitCodeOf('tight', false)).toBe(0);
		expect(exitCodeOf('tight', true)).toBe(4);
		expect(exitCodeOf('fits', true)).toBe(0);
		expect(exitCodeOf('unknown', true)).toBe(0);
	});
});

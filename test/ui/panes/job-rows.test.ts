import {describe, expect, test} from 'vitest';
import {localTimeShort} from '../../../src/format/time.js';
import {
	cursorLine,
	endedText,
	groupedTitleParts,
	headerOf,
	jobHeaderText,
	jobLines,
	lineCount,
	lineWindow,
	type PaneLine,
	shortPath,
	singleTitleParts,
} from '../../../src/ui/panes/job-rows.js';
import {endedJob, job, jobSet, NOW, rank, rankSet, twoJobs} from '../fixtures.js';
import {slurmOk} from '../../helpers/slurm-job.js';
import {slurmState} from '../../../src/slurm/scheduler-state.js';

// The ranks pane's jobs as lines: what is drawn where, and which lines a window of rows keeps.

/** The lines as short words: `J:torchrun:4242`, `R0` (rank 0's row), `-` (no ranks). */
function words(lines: readonly PaneLine[]): string[] {
	return lines.map(line =>
		line.kind === 'job'
			? `J:${line.job.id}`
			: line.kind === 'rank'
				? `R${line.index}`
				: line.kind === 'nccl'
					? 'N'
					: `-:${line.job.id}`,
	);
}

const NONE = new Set<number>();

/** Three jobs of 3, 0 (its launcher restarts the ranks) and 20 ranks. */
const jobs = [
	job(
		'torchrun:1',
		[0, 1, 2].map(n => rank(n, {pid: 100 + n})),
	),
	job('torchrun:2', [], {launcher: {pid: 2, startTime: 2, cmd: 'torchrun train.py'}}),
	job(
		'slurm:998.0',
		Array.from({length: 20}, (_, n) => rank(n, {pid: 300 + n})),
	),
];
const lines = jobLines(jobs);

describe('jobs as lines', () => {
	test('one job: its ranks only (the title says what its header would)', () => {
		expect(words(jobLines(rankSet(3).jobs))).toEqual(['R0', 'R1', 'R2']);
		expect(lineCount(rankSet(3).jobs)).toBe(3);
	});

	test('several jobs: a header each, then its ranks, counted across jobs; a job without ranks gets a line', () => {
		expect(words(lines).slice(0, 8)).toEqual([
			'J:torchrun:1',
			'R0',
			'R1',
			'R2',
			'J:torchrun:2',
			'-:torchrun:2',
			'J:slurm:998.0',
			'R3',
		]);
		expect(lines).toHaveLength(3 + 3 + 1 + 20);
		expect(lineCount(jobs)).toBe(lines.length);
	});

	test.each([
		[0, 1],
		[2, 3],
		[3, 7],
		[22, 26],
		[99, 26], // clamped to the last rank
		[-4, 1],
	])('cursor %i is on line %i', (cursor, line) => {
		expect(cursorLine(lines, cursor)).toBe(line);
		expect(lines[line]!.kind).toBe('rank');
	});

	test('the header of a line is the nearest job line above it', () => {
		expect(headerOf(lines, 3)).toBe(0);
		expect(headerOf(lines, 5)).toBe(4);
		expect(headerOf(lines, 20)).toBe(6);
		expect(headerOf(jobLines(rankSet(3).jobs), 2)).toBeNull();
	});
});

describe('the window of lines drawn', () => {
	test.each([
		// cursor line, rows → the lines drawn
		['everything fits', 1, 27, Array.from({length: 27}, (_, i) => i)],
		['the first job, from the top', 2, 5, [0, 1, 2, 3, 4]],
		['a window around the cursor that can start at its header: moved up to it', 8, 5, [6, 7, 8, 9, 10]],
		// The centred window [13, 18) would lose the header (line 6) and the cursor is 9 lines below it.
		['too far below its header: the header pinned on top', 15, 5, [6, 14, 15, 16, 17]],
		['the last rank: the window ends at the list end, header pinned', 26, 4, [6, 24, 25, 26]],
		['one row: the cursor alone', 15, 1, [15]],
		['no rows', 15, 0, []],
	])('%s', (_, at, rows, shown) => {
		const window = lineWindow(lines, at, rows);
		expect(window.shown).toEqual(shown);
	});

	test('the ranks above and below the window are counted, job headers are not', () => {
		// Lines 14–17 drawn under the pinned header: ranks 0–2 and 3–9 above (10), 14–19 below (6) … of slurm's.
		const {ranksAbove, ranksBelow} = lineWindow(lines, 15, 5);
		expect(ranksAbove).toBe(3 + 7);
		expect(ranksBelow).toBe(23 - 3 - 7 - 4);
		expect(lineWindow(lines, 1, 27)).toMatchObject({ranksAbove: 0, ranksBelow: 0});
	});

	test('every cursor and height: the cursor is drawn, and its header whenever there are 2 rows', () => {
		for (let cursor = 0; cursor < 23; cursor++) {
			for (let rows = 1; rows <= 28; rows++) {
				const at = cursorLine(lines, cursor);
				const {shown} = lineWindow(lines, at, rows);
				expect(shown).toContain(at);
				expect(shown.length).toBe(Math.min(rows, lines.length));
				if (rows >= 2) expect(shown).toContain(headerOf(lines, at));
				// Top to bottom, no line twice.
				expect([...shown].sort((a, b) => a - b)).toEqual(shown);
				expect(new Set(shown).size).toBe(shown.length);
			}
		}
	});
});

describe('a job in words', () => {
	test('the header: id, ranks, what is wrong first, marks, then run dir, SLURM and launcher', () => {
		const a = job('torchrun:4242', [rank(0, {stalled: true}), rank(1, {stopped: true, state: 'T'})], {
			worldSize: 8,
			localWorldSize: 4,
			allLocalRanksPresent: false,
			runDir: '/home/ann/projects/big/runs/a',
			task: {scheduler: 'slurm', jobId: '998', stepId: '0', restartCount: 2, taskId: 0},
			launcher: {pid: 4242, startTime: 1, cmd: '/opt/conda/bin/torchrun --nproc_per_node 4 train.py'},
		});
		expect(jobHeaderText(a, new Set([10_001]))).toBe(
			'JOB torchrun:4242 · 2 ranks (world 8) · 2 of 4 local ranks · 1 STALLED · 1 STOPPED · 1 marked · ' +
				'run dir /home/ann/projects/big/runs/a · SLURM 998.0, 2 restarts · launcher 4242 torchrun --nproc_per_node 4 train.py',
		);
		expect(jobHeaderText(job('pid:501', [rank(0)]), NONE)).toBe('JOB pid:501 · 1 rank');
		// Not RUN_DIR's job: where it runs is what tells it from the others.
		expect(jobHeaderText(job('pid:501', [rank(0)], {cwd: '/home/ann/exp2'}), NONE)).toBe(
			'JOB pid:501 · 1 rank · in /home/ann/exp2',
		);
	});

	test('a long run dir keeps its end', () => {
		expect(shortPath('/runs/a', 32)).toBe('/runs/a');
		expect(shortPath('/scratch/users/ann/experiments/2026-11/llama-70b/runs/a', 32)).toBe('…/2026-11/llama-70b/runs/a');
		expect(shortPath('/x/a-directory-name-far-longer-than-the-room', 20)).toHaveLength(20);
	});

	test('one job: the title stands for it; several: the title names the target job', () => {
		const one = rankSet(4, {}, n => (n === 3 ? {stalled: true} : {}));
		expect(singleTitleParts(one.jobs[0]!, new Set([10_000]), 'EACCES')).toEqual([
			'4 (world 4)',
			'job torchrun:9999',
			'target: 1 marked',
			'1 STALLED',
			'last scan failed: EACCES',
			'launcher 9999 torchrun --nproc_per_node 8 train.py',
		]);
		const set = twoJobs();
		expect(
			groupedTitleParts(
				set,
				{job: 'torchrun:5353', pids: [30_000, 30_001, 30_002], identities: [], marked: false, of: 3},
				null,
			),
		).toEqual(['5 in 2 jobs', 'target: job torchrun:5353 (all 3 ranks)']);
		expect(
			groupedTitleParts(set, {job: 'torchrun:4242', pids: [10_001], identities: [], marked: true, of: 2}, null)[1],
		).toBe('target: job torchrun:4242 (1 marked)');
		expect(jobSet([]).jobs).toEqual([]);
	});

	test('an ended job: its id, when (the time of day on the same day) and how', () => {
		const ended = endedJob('torchrun:4242', 30, {exit: {code: 99, signal: null}});
		expect(endedText(ended, NOW)).toBe(
			`job torchrun:4242 ended ${localTimeShort(NOW - 30_000, NOW)}, exit 99 — saved for requeue`,
		);
		expect(endedText(ended, NOW)).toMatch(/ended \d\d:\d\d:\d\d, exit 99/);
		expect(endedText(endedJob('pid:7', 1), NOW)).toMatch(/^job pid:7 ended \S+, exit status unknown$/);
	});

	test('a SLURM step whose exit /proc could not read: the controller\'s state and exit, not "exit status unknown"', () => {
		const step = endedJob('slurm:16.0', 5);
		const timeout = slurmOk(NOW, {
			state: 'TIMEOUT',
			reason: 'TimeLimit',
			timeLimitS: 60,
			exit: {code: 143, signal: null},
		});
		expect(endedText(step, NOW, slurmState(timeout))).toBe(
			`job slurm:16.0 ended ${localTimeShort(NOW - 5000, NOW)}; SLURM job 16 TIMEOUT (TimeLimit): its 1 m 00 s time limit reached, exit 143 (128 + SIGTERM)`,
		);
		// Still running by the controller, or another job's: nothing to add.
		expect(endedText(step, NOW, slurmState(slurmOk(NOW)))).toMatch(/, exit status unknown$/);
		expect(endedText(endedJob('slurm:17.0', 5), NOW, slurmState(timeout))).toMatch(/, exit status unknown$/);
	});
});

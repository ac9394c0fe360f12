import {describe, expect, test} from 'vitest';
import type {JobEvent, SignalState} from '../../src/core/types.js';
import {localTime} from '../../src/format/time.js';
import type {RankDetail} from '../../src/ranks/detail.js';
import {detailTitle, rankDetailLines, shellWord, signalWords} from '../../src/ui/rank-detail-lines.js';
import {GIB, NOW, rank} from './fixtures.js';

// The rank detail box's text: nothing cut (the command line and paths wrap), only the variables that are set.

const ARGV = [
	'/opt/conda/bin/python3',
	'-u',
	'train.py',
	'--config',
	'configs/very/long/path/experiment-2026-11-22.yaml',
	'--name',
	'two words',
	'--out',
	'/runs/a/checkpoints/some/deep/dir/that/is/longer/than/sixty/columns/by/itself',
];

function detail(over: Partial<RankDetail> = {}): RankDetail {
	const r = rank(0);
	return {
		rank: 0,
		pid: 10_000,
		job: 'torchrun:9999',
		host: 'node1',
		argv: ARGV,
		argvExact: true,
		cwd: '/home/u/runs/a',
		variables: [
			{name: 'RANK', value: '0'},
			{name: 'MASTER_ADDR', value: '10.0.0.7'},
		],
		signals: r.signals,
		workers: [
			{pid: 20_000, rssBytes: 0.5 * GIB, gone: false},
			{pid: 20_001, rssBytes: null, gone: true},
		],
		state: 'S',
		stalled: false,
		stopped: false,
		cpuPercent: 98,
		rssBytes: 3.1 * GIB,
		gpuMemoryBytes: 12 * GIB,
		startedAt: NOW - 3_600_000,
		readAt: NOW,
		...over,
	};
}

const event = (pid: number, text: string, extra: Partial<JobEvent> = {}): JobEvent => ({
	time: NOW - 60_000,
	kind: 'rank-stalled',
	job: 'torchrun:9999',
	rank: 0,
	pid,
	level: 'warn',
	text,
	...extra,
});

/** The lines of one section, from its heading to the blank line after it (or the end). */
function section(lines: readonly string[], heading: string): string[] {
	const from = lines.indexOf(heading);
	expect(from, `section ${heading}`).toBeGreaterThanOrEqual(0);
	const to = lines.indexOf('', from);
	return lines.slice(from + 1, to < 0 ? undefined : to);
}

/** The lines of a labelled field: its first line and the continuation lines under it. */
function fieldLines(lines: readonly string[], label: string): string[] {
	const from = lines.findIndex(l => l.startsWith(`${label.padEnd(10)}`));
	expect(from, `field ${label}`).toBeGreaterThanOrEqual(0);
	const rest = lines.slice(from + 1);
	const end = rest.findIndex(l => !l.startsWith(' '.repeat(10)));
	return lines.slice(from, from + 1 + (end < 0 ? rest.length : end));
}

test.each([
	['train.py', 'train.py'],
	['--lr=3e-4', '--lr=3e-4'],
	['/runs/a,b:c', '/runs/a,b:c'],
	['two words', "'two words'"],
	["it's", `'it'\\''s'`],
	['', "''"],
	['a\nb', "$'a\\nb'"],
	["it's\tx\x01", "$'it\\'s\\tx\\x01'"],
])('shellWord(%j) = %s', (arg, expected) => {
	expect(shellWord(arg)).toBe(expected);
});

const state = (disposition: SignalState['disposition'], extra: Partial<SignalState> = {}): SignalState => ({
	disposition,
	blocked: false,
	pending: false,
	terminatesByDefault: true,
	...extra,
});

test.each([
	[state('handled'), 'handled'],
	[state('ignored'), 'ignored'],
	[state('default'), 'no handler: the signal kills'],
	[state('default', {terminatesByDefault: false}), 'no handler, harmless'],
	[
		state('handled', {blocked: true, pending: true}),
		'handled · blocked: delivery waits until it is unblocked · pending: sent, not yet delivered',
	],
])('signalWords %#: %s', (signal, expected) => {
	expect(signalWords(signal)).toBe(expected);
});

test.each([
	[{rank: 3, pid: 4242, job: 'torchrun:9999'}, 'rank 3 · pid 4242 · job torchrun:9999'],
	[{rank: null, pid: 77, job: 'pid:77'}, 'rank ? · pid 77 · job pid:77'],
])('detailTitle %#', (of, expected) => {
	expect(detailTitle(of)).toBe(expected);
});

describe('rankDetailLines', () => {
	test.each([
		[
			60,
			[
				'command   /opt/conda/bin/python3 -u train.py --config',
				'          configs/very/long/path/experiment-2026-11-22.yaml',
				"          --name 'two words' --out",
				'          /runs/a/checkpoints/some/deep/dir/that/is/longer/t',
				'          han/sixty/columns/by/itself',
			],
		],
		[
			120,
			[
				'command   /opt/conda/bin/python3 -u train.py --config configs/very/long/path/experiment-2026-11-22.yaml --name',
				// Moved whole to the next line: a quoted argument is not cut at its own blank.
				"          'two words' --out /runs/a/checkpoints/some/deep/dir/that/is/longer/than/sixty/columns/by/itself",
			],
		],
	])('at %i columns the command line wraps, whole, and no line is wider', (width, command) => {
		const lines = rankDetailLines(detail(), [], width);
		expect(fieldLines(lines, 'command')).toEqual(command);
		for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(width);
		expect(lines).toContain('cwd       /home/u/runs/a');
		expect(lines).toContain(`started   ${localTime(NOW - 3_600_000)} (running 1 h 00 m)`);
	});

	test.each([60, 120])('at %i columns only the variables set are listed, in their order', width => {
		const lines = rankDetailLines(detail(), [], width);
		expect(section(lines, 'Launch variables')).toEqual(['  RANK         0', '  MASTER_ADDR  10.0.0.7']);
		for (const absent of ['WORLD_SIZE', 'LOCAL_RANK', 'SLURM_JOB_ID', 'CUDA_VISIBLE_DEVICES'])
			expect(lines.join('\n')).not.toContain(absent);
	});

	test.each([
		['unreadable', null, ["  not readable: the environment of another user's process"]],
		['none set', [], ['  none of RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, SLURM_… is set']],
	])('variables %s: said so', (_, variables, expected) => {
		expect(section(rankDetailLines(detail({variables}), [], 120), 'Launch variables')).toEqual(expected);
	});

	test('state, resources, signals with their marks and words, workers', () => {
		const lines = rankDetailLines(detail({stalled: true, cpuPercent: null, gpuMemoryBytes: null}), [], 120);
		expect(lines.slice(0, 2)).toEqual([
			'state     S sleeping, stalled (no CPU time for the stall window)',
			'usage     CPU n/a · RSS 3.1 GiB · GPU unknown',
		]);
		expect(section(lines, 'Signals')).toEqual([
			'  SIGTERM  ✓   handled',
			'  SIGINT   ✓   handled',
			'  SIGUSR1  ✓   handled',
			'  SIGUSR2  ✗   no handler: the signal kills',
			'  SIGCONT  -   no handler, harmless',
			'  SIGHUP   ✗   no handler: the signal kills',
			'  SIGQUIT  ✗   no handler: the signal kills',
		]);
		expect(section(lines, 'Workers (2)')).toEqual([
			'  pid 20000  RSS 512 MiB',
			'  pid 20001  gone since the last scan',
		]);
	});

	test("a command line that is the last scan's, not /proc's, says so", () => {
		const lines = rankDetailLines(detail({argvExact: false, argv: ['python3', 'train.py']}), [], 120);
		expect(fieldLines(lines, 'command')).toEqual([
			'command   python3 train.py',
			"          (the last scan's: /proc/PID/cmdline could not be read)",
		]);
	});

	test("recent events: this rank's only (by pid), wrapped under their text", () => {
		const events = [
			event(10_000, 'rank 0 (pid 10000) stalled: no CPU time for 60 s while the other ranks run'),
			event(10_001, 'rank 1 (pid 10001) stopped', {kind: 'rank-stopped'}),
			event(10_000, 'rank 0 (pid 10000) runs again', {kind: 'rank-resumed', level: 'ok', time: NOW}),
		];
		const time = (ms: number) => localTime(ms).slice(11);
		expect(section(rankDetailLines(detail(), events, 60), 'Recent events')).toEqual([
			`  ${time(NOW - 60_000)} WARN rank 0 (pid 10000) stalled: no CPU time for`,
			'                60 s while the other ranks run',
			`  ${time(NOW)} ok   rank 0 (pid 10000) runs again`,
		]);
		expect(section(rankDetailLines(detail(), [events[1]!], 60), 'Recent events')).toEqual([
			'  none among the recent events (exits, stops, stalls)',
		]);
	});
});

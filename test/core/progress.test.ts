import {describe, expect, it} from 'vitest';
import {wchanWords} from '../../src/format/progress.js';
import {ProgressJudge, type ProgressInputs} from '../../src/core/progress.js';
import {CpuWindow} from '../../src/core/progress-cpu.js';
import {GpuSpins} from '../../src/core/progress-gpu.js';
import {oddAndWaiting, type Member} from '../../src/core/progress-odd.js';
import type {JobProgress, RankWaits, StepSignal} from '../../src/core/progress-types.js';
import {type DepartedProcess, type GpuState, NO_GPU_PROCESSES, type RankProcess} from '../../src/core/types.js';
import {job, rankSet, T0} from './job-data.js';

// The progress judge over rank scans as the sampler makes them: a rank's CPU share per scan, the wait channels
// ranks/rank-waits.ts reads for those that do not compute. The wait channels are the ones recorded on Linux 6.18
// (torch 1.13, gloo): a rank blocked in all_reduce sleeps in futex_do_wait, one in time.sleep in hrtimer_nanosleep.

const SCAN_MS = 500;
const NO_GPU: GpuState = {status: 'absent', reason: 'none'};

/** Drives a judge over scans of one 3-rank job; `each(scan, n)` gives rank n's figures at that scan. */
function drive(
	scans: number,
	each: (scan: number, n: number) => {cpu: number; state?: string; wchan?: string | null},
	options: {hangAfterS?: number; steps?: (scan: number) => StepSignal[]; ranks?: number} = {},
): JobProgress[][] {
	const judge = new ProgressJudge({hangAfterS: options.hangAfterS ?? 20});
	const out: JobProgress[][] = [];
	for (let scan = 0; scan < scans; scan++) {
		const at = T0 + scan * SCAN_MS;
		const figures = (n: number) => each(scan, n);
		const j = job('torchrun:4200', options.ranks ?? 3, n => ({
			cpuPercent: scan === 0 ? null : figures(n).cpu,
			state: figures(n).state ?? 'S',
		}));
		const waits: RankWaits = new Map(
			j.ranks.map(r => [r.pid, {wchan: figures(r.rank ?? 0).wchan ?? null, workers: []}] as const),
		);
		const inputs: ProgressInputs = {
			ranks: rankSet([j], {at}),
			waits,
			steps: options.steps?.(scan) ?? [],
			gpu: NO_GPU,
			gpuProcesses: NO_GPU_PROCESSES,
			ras: null,
			now: at,
		};
		out.push([...judge.judge(inputs)]);
	}
	return out;
}

const first = (verdicts: JobProgress[][], wanted: string) => verdicts.findIndex(v => v[0]?.verdict === wanted);

describe('the progress verdict', () => {
	it('names the rank that sleeps while the others wait in a collective, after the window and not before', () => {
		// Healthy for 10 s (20 scans), then rank 1 sleeps and ranks 0 and 2 block in all_reduce.
		const hangAt = 20;
		const verdicts = drive(100, (scan, n) =>
			scan < hangAt ? {cpu: 40, state: 'R'} : {cpu: 0, wchan: n === 1 ? 'hrtimer_nanosleep' : 'futex_do_wait'},
		);
		expect(verdicts[5]![0]!.verdict).toBe('progressing');
		const hung = first(verdicts, 'hung');
		// The last computing scan is hangAt − 1; the window is 20 s = 40 scans.
		expect(hung).toBe(hangAt - 1 + 40);
		// The first scan has no CPU share yet (unknown); from the second on, progressing until the window has passed.
		expect(verdicts.slice(1, hung).every(v => v[0]!.verdict === 'progressing')).toBe(true);
		const p = verdicts[hung]![0]!;
		expect(p.odd).toMatchObject([{role: 'rank', rank: 1, activity: 'sleeping', wchan: 'hrtimer_nanosleep'}]);
		expect(p.waiting).toMatchObject([{ranks: [0, 2], activity: 'waiting', wchan: 'futex_do_wait'}]);
		expect(p.since).toBe(T0 + (hangAt - 1) * SCAN_MS);
	});

	it('does not call a whole-job pause shorter than the window a stall', () => {
		// Every 30 s (60 scans) all ranks sleep for 15 s (30 scans), a slow evaluation, under a 20 s window.
		const verdicts = drive(300, scan =>
			scan % 60 < 30 ? {cpu: 30, state: 'R'} : {cpu: 0, wchan: 'hrtimer_nanosleep'},
		);
		expect(verdicts.slice(2).every(v => v[0]!.verdict === 'progressing')).toBe(true);
	});

	it('calls a job whose ranks all wait alike stalled (no odd rank), then progressing only after 3 busy scans', () => {
		const verdicts = drive(80, scan =>
			scan < 5 || scan >= 60 ? {cpu: 50, state: 'R'} : {cpu: 0, wchan: 'futex_do_wait'},
		);
		const stalled = first(verdicts, 'stalled');
		expect(stalled).toBe(4 + 40);
		expect(verdicts[stalled]![0]!.evidence.map(e => e.code)).toContain('all-waiting');
		// Busy again from scan 60: the first busy scan keeps the verdict, the third makes it progressing.
		expect(verdicts[60]![0]!.verdict).toBe('stalled');
		expect(verdicts[61]![0]!.verdict).toBe('stalled');
		expect(verdicts[62]![0]!.verdict).toBe('progressing');
	});

	it('calls a rank stopped while its peers wait hung at once, naming it stopped', () => {
		const verdicts = drive(30, (scan, n) =>
			scan < 10 ? {cpu: 40, state: 'R'} : n === 2 ? {cpu: 0, state: 'T'} : {cpu: 0, wchan: 'futex_do_wait'},
		);
		const hung = first(verdicts, 'hung');
		expect(hung).toBe(10);
		expect(verdicts[hung]![0]!.odd).toMatchObject([{rank: 2, activity: 'stopped'}]);
		expect(verdicts[hung]![0]!.waiting).toMatchObject([{ranks: [0, 1], activity: 'waiting'}]);
	});

	it('keeps a job with stray clock ticks on its waiting ranks stalled: they are not computing', () => {
		// A waiting rank gets a tick now and then (0.1–0.3 % of a core): 2 % in one scan every 10 scans.
		const verdicts = drive(70, (scan, n) =>
			scan < 4 ? {cpu: 40, state: 'R'} : {cpu: scan % 10 === n ? 2 : 0, wchan: 'futex_do_wait'},
		);
		expect(first(verdicts, 'stalled')).toBeGreaterThan(0);
	});

	it('takes step files that move as progress, and files that stop while the CPU spins as a stall', () => {
		const step = (movedScan: number, intervalS: number): StepSignal => ({
			source: 'progress-file',
			path: '/runs/a/train.log',
			step: movedScan * 10,
			movedAt: T0 + movedScan * SCAN_MS,
			intervalS,
			stepS: 0.05,
		});
		// Every rank spins on the CPU throughout (a hung NCCL job's ranks do); the log moved every 2 s until scan 20.
		const verdicts = drive(100, () => ({cpu: 100, state: 'R'}), {
			steps: scan => [step(Math.min(scan - (scan % 4), 20), 2)],
		});
		const stalled = first(verdicts, 'stalled');
		expect(stalled).toBe(20 + 40);
		expect(verdicts[stalled]![0]!.evidence.map(e => e.code)).toEqual(
			expect.arrayContaining(['steps-late', 'cpu-without-steps']),
		);
		expect(verdicts[10]![0]!.evidence.map(e => e.code)).toContain('steps-moving');
	});

	it('is unknown until a rank is seen computing, and stalled once the window passes with none', () => {
		const verdicts = drive(50, () => ({cpu: 0, wchan: 'futex_do_wait'}));
		expect(verdicts[1]![0]!.verdict).toBe('unknown');
		expect(first(verdicts, 'stalled')).toBe(40);
	});
});

describe('a gone rank', () => {
	it('makes the job hung at the scan that finds it gone, its peers named as waiting', () => {
		const judge = new ProgressJudge({hangAfterS: 300});
		const inputs = (at: number, ranks: readonly RankProcess[], departed: DepartedProcess[] = []) => {
			const j = {...job('torchrun:4200', 3), ranks};
			return {
				ranks: rankSet([j], {at, departed}),
				waits: new Map(ranks.map(r => [r.pid, {wchan: 'futex_do_wait', workers: []}] as const)),
				steps: [],
				gpu: NO_GPU,
				gpuProcesses: NO_GPU_PROCESSES,
				ras: null,
				now: at,
			};
		};
		const all = job('torchrun:4200', 3, () => ({state: 'R', cpuPercent: 60})).ranks;
		judge.judge(inputs(T0, all));
		judge.judge(inputs(T0 + 500, all));
		const left = all.filter(r => r.rank !== 1).map(r => ({...r, state: 'S', cpuPercent: 0}));
		const [p] = judge.judge(
			inputs(T0 + 1000, left, [
				{role: 'rank', job: 'torchrun:4200', rank: 1, pid: 4202, exit: {code: null, signal: 'SIGKILL'}},
			]),
		);
		expect(p?.verdict).toBe('hung');
		expect(p?.odd).toMatchObject([{rank: 1, pid: 4202, activity: 'gone', exit: {signal: 'SIGKILL'}}]);
		expect(p?.waiting).toMatchObject([{ranks: [0, 2], activity: 'waiting'}]);
	});
});

describe('the odd rank out', () => {
	const m = (
		rank: number,
		activity: Member['activity'],
		wchan: string | null,
		workers?: Member['workers'],
	): Member => ({
		role: 'rank',
		rank,
		pid: 100 + rank,
		activity,
		wchan,
		since: T0,
		...(workers ? {workers} : {}),
	});

	it('names a rank waiting on its stuck DataLoader worker, and the worker', () => {
		const worker = {
			role: 'worker' as const,
			rank: 1,
			pid: 501,
			activity: 'sleeping' as const,
			wchan: 'hrtimer_nanosleep',
			since: T0,
			of: 101,
		};
		const idle = {...worker, pid: 502, wchan: 'poll_schedule_timeout'};
		const {odd, waiting} = oddAndWaiting([
			m(0, 'waiting', 'futex_do_wait'),
			m(1, 'sleeping', 'poll_schedule_timeout', [worker, idle]),
			m(2, 'waiting', 'futex_do_wait'),
		]);
		expect(odd.map(o => [o.role, o.pid])).toEqual([
			['rank', 101],
			['worker', 501],
		]);
		expect(waiting).toMatchObject([{ranks: [0, 2]}]);
	});

	it('with nobody in a collective wait, names the minority against a strict majority, and nobody on a tie', () => {
		expect(oddAndWaiting([m(0, 'sleeping', 'a'), m(1, 'sleeping', 'a'), m(2, 'computing', null)]).odd).toMatchObject([
			{rank: 2},
		]);
		expect(oddAndWaiting([m(0, 'sleeping', 'a'), m(1, 'sleeping', 'b')]).odd).toEqual([]);
		expect(oddAndWaiting([m(0, 'sleeping', 'a'), m(1, 'stopped', null)]).odd).toMatchObject([{rank: 1}]);
		// A rank in D (I/O) while the others wait in a collective: it is the one they wait for.
		expect(
			oddAndWaiting([
				m(0, 'waiting', 'futex_do_wait'),
				m(1, 'disk', 'folio_wait_bit_common'),
				m(2, 'waiting', 'futex_do_wait'),
			]).odd,
		).toMatchObject([{rank: 1, activity: 'disk'}]);
	});
});

describe('the CPU window', () => {
	it('counts a rank at 4 % of a core as computing and one with a stray tick as not', () => {
		const busy = new CpuWindow();
		const idle = new CpuWindow();
		busy.add(T0, null);
		idle.add(T0, null);
		const results = Array.from({length: 12}, (_, i) => {
			const at = T0 + (i + 1) * SCAN_MS;
			return [busy.add(at, 4), idle.add(at, i === 5 ? 2 : 0)];
		});
		expect(results.map(r => r[0])).toEqual(Array(12).fill(true));
		expect(results.map(r => r[1])).toEqual(Array(12).fill(false));
		expect(idle.advancedAt).toBeNull();
	});
});

describe('the GPU sign', () => {
	const state = (util: number, watts: number): GpuState => ({
		status: 'ok',
		sampledAt: T0,
		warning: null,
		gpus: [
			{
				index: 0,
				uuid: 'GPU-0d1faa98',
				name: 'NVIDIA H200',
				memoryTotalBytes: null,
				memoryUsedBytes: null,
				memoryPercent: null,
				utilizationPercent: util,
				powerDrawW: watts,
				powerLimitW: 700,
			},
		],
	});
	const table = {processes: [{pid: 4201, gpuUuid: 'GPU-0d1faa98', usedBytes: 1}], sampledAt: T0, error: null};

	it('reads full utilisation at near-idle power as spinning, and the recorded NCCL loop (0 %, 118 W) as not', () => {
		// recorded-h200/nccl-util.csv: an NCCL all_reduce loop read 0 % at 118.3 W of 700 W; query-idle.csv: 80.1 W idle.
		const spins = new GpuSpins();
		spins.update(state(0, 118.32), T0);
		expect(spins.evidence(new Set([4201]), table, T0)).toEqual([]);
		spins.update(state(100, 118.3), T0 + 1000);
		spins.update(state(100, 121), T0 + 61_000);
		expect(spins.evidence(new Set([4201]), table, T0 + 61_000)).toMatchObject([
			{code: 'gpu-spin', gpu: 0, seconds: 60},
		]);
		spins.update(state(100, 560), T0 + 62_000);
		expect(spins.evidence(new Set([4201]), table, T0 + 62_000)).toMatchObject([{code: 'gpu-working'}]);
		// Not the job's GPU: no evidence.
		expect(spins.evidence(new Set([9999]), table, T0 + 62_000)).toEqual([]);
	});
});

describe('the words', () => {
	it('drops the compiler suffixes of a wait channel, and keeps plain names as they are', () => {
		expect(wchanWords('poll_schedule_timeout.constprop.0')).toBe('poll_schedule_timeout');
		expect(wchanWords('do_sys_poll.isra.0')).toBe('do_sys_poll');
		expect(wchanWords('futex_do_wait')).toBe('futex_do_wait');
	});
});

import {describe, expect, test} from 'vitest';
import {saveTimes, savesNeverComplete} from '../../src/checkpoints/save-duration.js';
import {jobReadiness, readinessOfJobs} from '../../src/core/job-readiness.js';
import {judgeReadiness, type LauncherFacts, type ReadinessInput, type SignalPath} from '../../src/core/readiness.js';
import type {Readiness, ReadinessReason} from '../../src/core/readiness-types.js';
import type {CheckpointIndex, Job, SignalState} from '../../src/core/types.js';
import type {SchedulerState} from '../../src/scheduler/types.js';
import {cadenceEvery300, checkpoint, checkpointIndex, NOW} from '../helpers/checkpoint-data.js';
import {job, rankSet} from './job-data.js';

// The readiness judgement, rule by rule: each case asserts the verdict and the reason that makes it, with its figures,
// so that every output (TUI, headless, --json, the agent) says the same thing for the same facts.

type Disposition = SignalState['disposition'];

const state = (disposition: Disposition): SignalState => ({
	disposition,
	blocked: false,
	pending: false,
	terminatesByDefault: true,
});

/** A job whose ranks have `each(n)` as their SIGTERM disposition. */
function ranksWith(count: number, each: (n: number) => Disposition = () => 'handled', id = 'torchrun:4200'): Job {
	return job(id, count, n => ({signals: {SIGTERM: state(each(n))}}));
}

const TASKS_GRACE: SignalPath = {signal: 'SIGTERM', leadS: 120, leadFrom: 'grace', target: 'tasks', shellTrap: null};
const SAVES = {p50: 10, max: 12, samples: 4, slowest: 'checkpoint_step_1500'};

function input(extra: Partial<ReadinessInput> = {}): ReadinessInput {
	return {
		job: ranksWith(2),
		path: TASKS_GRACE,
		launcher: null,
		saves: SAVES,
		lastSaveAt: NOW - 60_000,
		savesNeverComplete: false,
		maxWorkAtRiskS: 1800,
		now: NOW,
		...extra,
	};
}

const codes = (r: Readiness): string[] => r.reasons.map(reason => reason.code);
const reason = (r: Readiness, code: ReadinessReason['code']): ReadinessReason | undefined =>
	r.reasons.find(one => one.code === code);

const torchrun = (extra: Partial<LauncherFacts> = {}): LauncherFacts => ({
	name: 'torchrun',
	pid: 4200,
	forwards: ['SIGTERM'],
	killAfterS: 30,
	source: 'torch 2.11 torch/distributed/elastic/multiprocessing/api.py',
	exitCode: null,
	...extra,
});

describe('judgeReadiness: the ranks', () => {
	test('every rank handles it and saves fit the lead: ready, with the figures behind it', () => {
		const r = judgeReadiness(input());
		expect(r.verdict).toBe('ready');
		expect(r.job).toBe('torchrun:4200');
		expect(r.signal).toBe('SIGTERM');
		expect(r.reasons).toEqual([
			{code: 'handlers', effect: 'fact', signal: 'SIGTERM', count: 2},
			{code: 'save-time', effect: 'fact', seconds: 10, limitS: 12, count: 4},
			{code: 'lead', effect: 'fact', signal: 'SIGTERM', seconds: 120, name: 'grace'},
			{code: 'work-since-save', effect: 'fact', limitS: 1800},
		]);
		expect(r.leadS).toBe(120);
		expect(r.leadFrom).toBe('grace');
		expect(r.saveS).toEqual(SAVES);
		expect(r.lastSaveAt).toBe(NOW - 60_000);
		expect(r.maxWorkAtRiskS).toBe(1800);
	});

	test('one rank with the default disposition: not-ready, naming its rank and pid', () => {
		const r = judgeReadiness(input({job: ranksWith(4, n => (n === 2 ? 'default' : 'handled'))}));
		expect(r.verdict).toBe('not-ready');
		expect(r.reasons.filter(one => one.effect === 'not-ready')).toEqual([
			{code: 'no-handler', effect: 'not-ready', signal: 'SIGTERM', rank: 2, pid: 4203},
		]);
		expect(codes(r)).not.toContain('handlers');
	});

	test('a rank that ignores it: not-ready (ignored)', () => {
		const r = judgeReadiness(input({job: ranksWith(2, n => (n === 0 ? 'ignored' : 'handled'))}));
		expect(r.verdict).toBe('not-ready');
		expect(reason(r, 'ignored')).toEqual({code: 'ignored', effect: 'not-ready', signal: 'SIGTERM', rank: 0, pid: 4201});
	});

	test('no ranks: unknown (no-ranks), never ready', () => {
		const r = judgeReadiness(input({job: job('torchrun:4200', 0)}));
		expect(r.verdict).toBe('unknown');
		expect(reason(r, 'no-ranks')).toEqual({code: 'no-ranks', effect: 'unknown', signal: 'SIGTERM'});
	});

	test('ranks whose disposition was not read: unknown, counting them', () => {
		const r = judgeReadiness(input({job: job('torchrun:4200', 3)}));
		expect(r.verdict).toBe('unknown');
		expect(reason(r, 'no-ranks')).toEqual({code: 'no-ranks', effect: 'unknown', signal: 'SIGTERM', count: 3});
	});

	test('before launch (no job): the handlers are not judged, the verdict is named by jobId', () => {
		const r = judgeReadiness(input({job: null, jobId: 'train.sbatch'}));
		expect(r.job).toBe('train.sbatch');
		expect(r.verdict).toBe('ready');
		expect(codes(r)).toEqual(['save-time', 'lead', 'work-since-save']);
	});
});

describe('judgeReadiness: the batch shell', () => {
	const warning = (shellTrap: SignalPath['shellTrap'], target: SignalPath['target'] = 'batch-shell'): SignalPath => ({
		signal: 'SIGUSR1',
		leadS: 120,
		leadFrom: 'scheduler-warning',
		target,
		shellTrap,
	});
	const usr1 = (count: number) => job('torchrun:4200', count, () => ({signals: {SIGUSR1: state('handled')}}));

	test.each(['none', 'ignores'] as const)('B: to a shell whose trap is %s: not-ready (batch-shell-only)', trap => {
		const r = judgeReadiness(input({job: usr1(2), path: warning(trap)}));
		expect(r.verdict).toBe('not-ready');
		expect(reason(r, 'batch-shell-only')).toEqual({code: 'batch-shell-only', effect: 'not-ready', signal: 'SIGUSR1'});
	});

	test('B: to a shell whose trap was not read: unknown, never taken for one that passes it on', () => {
		const r = judgeReadiness(input({job: usr1(2), path: warning(null)}));
		expect(r.verdict).toBe('unknown');
		expect(reason(r, 'shell-trap-unread')).toEqual({code: 'shell-trap-unread', effect: 'unknown', signal: 'SIGUSR1'});
	});

	test('B: to a shell that forwards it: a note, and the lead judged', () => {
		const r = judgeReadiness(input({job: usr1(2), path: warning('forwards'), launcher: torchrun()}));
		expect(r.verdict).toBe('ready');
		expect(reason(r, 'shell-forwards')).toEqual({code: 'shell-forwards', effect: 'note', signal: 'SIGUSR1'});
		expect(reason(r, 'lead')).toEqual({
			code: 'lead',
			effect: 'fact',
			signal: 'SIGUSR1',
			seconds: 120,
			name: 'scheduler-warning',
		});
		// The shell's trap decides: the launcher's own kill delay is not weighed on this route.
		expect(codes(r)).not.toContain('launcher-kills');
		expect(r.leadS).toBe(120);
	});

	test('B: to a shell whose trap requeues: at-risk (shell-trap-no-forward, naming the trap)', () => {
		const r = judgeReadiness(input({job: usr1(2), path: warning('requeues')}));
		expect(r.verdict).toBe('at-risk');
		expect(reason(r, 'shell-trap-no-forward')).toEqual({
			code: 'shell-trap-no-forward',
			effect: 'at-risk',
			signal: 'SIGUSR1',
			name: 'requeues',
		});
	});

	test('a trap present while the warning goes to the tasks: a note that it never runs', () => {
		const r = judgeReadiness(input({job: usr1(2), path: warning('requeues', 'tasks')}));
		expect(r.verdict).toBe('ready');
		expect(reason(r, 'shell-trap-unreached')).toEqual({
			code: 'shell-trap-unreached',
			effect: 'note',
			signal: 'SIGUSR1',
		});
		expect(codes(judgeReadiness(input({job: usr1(2), path: warning('none', 'tasks')})))).not.toContain(
			'shell-trap-unreached',
		);
	});
});

describe('judgeReadiness: the launcher', () => {
	test('it forwards and SIGKILLs after 30 s under a 120 s lead: the lead is 30 s and names the launcher', () => {
		const r = judgeReadiness(input({launcher: torchrun()}));
		expect(r.leadS).toBe(30);
		expect(r.leadFrom).toBe('grace');
		expect(reason(r, 'launcher-kills')).toEqual({
			code: 'launcher-kills',
			effect: 'note',
			signal: 'SIGTERM',
			name: 'torchrun',
			pid: 4200,
			source: 'torch 2.11 torch/distributed/elastic/multiprocessing/api.py',
			seconds: 30,
		});
		expect(reason(r, 'lead')).toEqual({
			code: 'lead',
			effect: 'fact',
			signal: 'SIGTERM',
			seconds: 30,
			name: 'grace',
			source: 'torchrun',
		});
		expect(r.verdict).toBe('ready');
	});

	test('under a 20 s lead the launcher does not cut it', () => {
		const r = judgeReadiness(input({launcher: torchrun(), path: {...TASKS_GRACE, leadS: 20}}));
		expect(r.leadS).toBe(20);
		expect(reason(r, 'lead')).toEqual({code: 'lead', effect: 'fact', signal: 'SIGTERM', seconds: 20, name: 'grace'});
		expect(reason(r, 'launcher-kills')?.seconds).toBe(30);
	});

	test('no lead known: the launcher’s delay stays an upper bound, the lead null and the verdict unknown', () => {
		const path: SignalPath = {signal: 'SIGTERM', leadS: null, leadFrom: null, target: 'tasks', shellTrap: null};
		const r = judgeReadiness(input({launcher: torchrun(), path}));
		expect(r.leadS).toBeNull();
		expect(r.verdict).toBe('unknown');
		expect(reason(r, 'no-deadline')).toEqual({code: 'no-deadline', effect: 'unknown'});
		expect(codes(r)).toContain('launcher-kills');
		expect(codes(r)).not.toContain('lead');
	});

	test('a launcher that does not forward it and has the default disposition: at-risk (launcher-dies)', () => {
		const r = judgeReadiness(
			input({
				launcher: torchrun({name: 'accelerate launch', forwards: [], killAfterS: null, signals: {SIGTERM: 'default'}}),
			}),
		);
		expect(r.verdict).toBe('at-risk');
		expect(reason(r, 'launcher-dies')).toMatchObject({
			code: 'launcher-dies',
			effect: 'at-risk',
			signal: 'SIGTERM',
			name: 'accelerate launch',
			pid: 4200,
		});
		// Not read (before launch): nothing said of its own death.
		expect(codes(judgeReadiness(input({launcher: torchrun({forwards: [], killAfterS: null})})))).not.toContain(
			'launcher-dies',
		);
	});

	test('a launcher with a fixed exit code: a note carrying the code; no pid before launch', () => {
		const r = judgeReadiness(input({launcher: torchrun({exitCode: 1, pid: null})}));
		expect(r.verdict).toBe('ready');
		const note = reason(r, 'launcher-exit-code');
		expect(note).toMatchObject({code: 'launcher-exit-code', effect: 'note', name: 'torchrun', exitCode: 1});
		expect(note && 'pid' in note).toBe(false);
	});
});

describe('judgeReadiness: the saves', () => {
	test('the slowest save over the lead: at-risk (save-over-lead) with the save, the lead and its checkpoint', () => {
		const r = judgeReadiness(input({saves: {p50: 40, max: 150, samples: 3, slowest: 'checkpoint_step_1000'}}));
		expect(r.verdict).toBe('at-risk');
		expect(reason(r, 'save-over-lead')).toEqual({
			code: 'save-over-lead',
			effect: 'at-risk',
			seconds: 150,
			limitS: 120,
			name: 'checkpoint_step_1000',
		});
		expect(codes(r)).not.toContain('lead');
	});

	test('saves begun and none completed: not-ready', () => {
		const r = judgeReadiness(input({saves: null, lastSaveAt: null, savesNeverComplete: true}));
		expect(r.verdict).toBe('not-ready');
		expect(reason(r, 'saves-never-complete')).toEqual({code: 'saves-never-complete', effect: 'not-ready'});
		expect(codes(r)).not.toContain('no-save-seen');
	});

	test('no save seen: unknown (no-save-seen), no work-since figure', () => {
		const r = judgeReadiness(input({saves: null, lastSaveAt: null}));
		expect(r.verdict).toBe('unknown');
		expect(reason(r, 'no-save-seen')).toEqual({code: 'no-save-seen', effect: 'unknown'});
		expect(codes(r).filter(c => c.startsWith('work'))).toEqual([]);
	});

	test('the last save older than the work limit: at-risk (work-over-limit); within it a fact', () => {
		const over = judgeReadiness(input({lastSaveAt: NOW - 1801_000}));
		expect(over.verdict).toBe('at-risk');
		expect(reason(over, 'work-over-limit')).toEqual({code: 'work-over-limit', effect: 'at-risk', limitS: 1800});
		const within = judgeReadiness(input({lastSaveAt: NOW - 1800_000}));
		expect(within.verdict).toBe('ready');
		expect(reason(within, 'work-since-save')).toEqual({code: 'work-since-save', effect: 'fact', limitS: 1800});
		// No limit known: the figure, never a judgement.
		const unlimited = judgeReadiness(input({lastSaveAt: NOW - 86_400_000, maxWorkAtRiskS: null}));
		expect(reason(unlimited, 'work-since-save')).toEqual({code: 'work-since-save', effect: 'fact'});
		expect(unlimited.verdict).toBe('ready');
	});
});

describe('judgeReadiness: precedence', () => {
	test('not-ready over at-risk over unknown over ready', () => {
		const notReady = input({
			job: ranksWith(2, n => (n === 1 ? 'default' : 'handled')),
			saves: {...SAVES, max: 500},
			path: {...TASKS_GRACE, leadS: null, leadFrom: null},
		});
		// no-handler (not-ready) and no-deadline (unknown) together.
		expect(judgeReadiness(notReady).verdict).toBe('not-ready');
		const atRisk = input({lastSaveAt: NOW - 7200_000, saves: null});
		expect(codes(judgeReadiness(atRisk))).toEqual(['handlers', 'no-save-seen', 'lead', 'work-over-limit']);
		expect(judgeReadiness(atRisk).verdict).toBe('at-risk');
		expect(judgeReadiness(input({saves: null})).verdict).toBe('unknown');
		expect(judgeReadiness(input()).verdict).toBe('ready');
	});
});

// --- A job's readiness from a snapshot's parts ---

const T = NOW;

function scheduler(jobId: string, deadline: Partial<NonNullable<SchedulerState['job']>['deadline']>): SchedulerState {
	return {
		kind: 'fake',
		name: 'the fake scheduler',
		status: 'ok',
		jobId,
		readAt: T,
		job: {
			id: jobId,
			eventJob: `fake:${jobId}`,
			state: 'RUNNING',
			phase: 'running',
			startTime: T - 3_600_000,
			restarts: 0,
			requeueable: true,
			exit: null,
			deadline: {timeLeftS: 3600, warning: null, graceS: null, ...deadline},
		},
		reason: null,
	};
}

/** A job whose ranks are the scheduler's job `jobId`'s tasks (and handle both signals). */
function scheduled(id: string, jobId: string, kind = 'fake'): Job {
	return job(id, 2, n => ({
		signals: {SIGTERM: state('handled'), SIGUSR1: state('handled')},
		task: {scheduler: kind, jobId, stepId: '0', restartCount: 0, taskId: n},
	}));
}

const withTask = (j: Job, kind: string, jobId: string): Job => ({
	...j,
	task: {scheduler: kind, jobId, stepId: '0', restartCount: 0, taskId: null},
});

const NONE = {graceS: null, maxWorkAtRiskS: null};

describe('jobReadiness', () => {
	const warned = scheduler('42', {warning: {signal: 'USR1', leadS: 300}, graceS: 30});

	test('the scheduler’s warning gives the signal and the lead', () => {
		const j = withTask(scheduled('fake:42.0', '42'), 'fake', '42');
		const r = jobReadiness(j, rankSet([j]), null, warned, NONE, T);
		expect(r.signal).toBe('SIGUSR1');
		expect(r.leadFrom).toBe('scheduler-warning');
		// torchrun passes on SIGTERM, SIGINT, SIGHUP and SIGQUIT, not USR1: its 30 s kill does not cut this lead.
		expect(r.leadS).toBe(300);
		expect(reason(r, 'launcher-kills')).toBeUndefined();
	});

	test('--grace wins over the scheduler’s warning', () => {
		const j = withTask(scheduled('fake:42.0', '42'), 'fake', '42');
		const r = jobReadiness(j, rankSet([j]), null, warned, {graceS: 90, maxWorkAtRiskS: null}, T);
		expect(r.signal).toBe('SIGTERM');
		expect(r.leadFrom).toBe('grace');
		// torchrun's own 30 s kill is shorter than the 90 s given.
		expect(r.leadS).toBe(30);
		expect(reason(r, 'lead')).toMatchObject({seconds: 30, name: 'grace', source: 'torchrun'});
	});

	test('the warning applies only to the job whose task names the scheduler’s job, by kind and id', () => {
		const other = withTask(scheduled('fake:43.0', '43'), 'fake', '43');
		const otherKind = withTask(scheduled('other:42.0', '42', 'other'), 'other', '42');
		for (const j of [other, otherKind]) {
			const r = jobReadiness(j, rankSet([j]), null, warned, NONE, T);
			expect(r.signal).toBe('SIGTERM');
			expect(r.leadFrom).toBeNull();
			expect(r.leadS).toBeNull();
			expect(reason(r, 'no-deadline')).toBeDefined();
		}
		// The scheduler's job without a warning: SIGTERM and its kill wait.
		const j = withTask(scheduled('fake:42.0', '42'), 'fake', '42');
		const r = jobReadiness(j, rankSet([j]), null, scheduler('42', {graceS: 30}), NONE, T);
		expect(r.signal).toBe('SIGTERM');
		expect(r.leadFrom).toBe('kill-wait');
		expect(r.leadS).toBe(30);
	});

	test('the run dir’s saves only for the run dir’s job; the work limit twice the cadence', () => {
		const a = ranksWith(2, () => 'handled', 'torchrun:100');
		const b = ranksWith(2, () => 'handled', 'torchrun:200');
		const set = rankSet([a, b], {runDirMatch: {jobs: ['torchrun:200'], evidence: null}});
		const index = checkpointIndex({cadence: cadenceEvery300(NOW + 60_000)});
		const mine = jobReadiness(b, set, index, null, NONE, T);
		// Four complete saves of 40 s (the manual one counts; the partial does not); on a tie the first seen is named.
		expect(mine.saveS).toEqual({p50: 40, max: 40, samples: 4, slowest: 'checkpoint_step_500'});
		expect(mine.lastSaveAt).toBe(index.lastSave?.time);
		expect(mine.maxWorkAtRiskS).toBe(1800);
		const theirs = jobReadiness(a, set, index, null, NONE, T);
		expect(theirs.saveS).toBeNull();
		expect(theirs.lastSaveAt).toBeNull();
		expect(theirs.maxWorkAtRiskS).toBeNull();
		expect(reason(theirs, 'no-save-seen')).toBeDefined();
		// --max-work-at-risk wins over the cadence.
		expect(jobReadiness(b, set, index, null, {graceS: null, maxWorkAtRiskS: 600}, T).maxWorkAtRiskS).toBe(600);
	});
});

describe('readinessOfJobs', () => {
	const a = ranksWith(2, () => 'handled', 'torchrun:100');
	const b = ranksWith(2, () => 'handled', 'torchrun:200');
	const index = checkpointIndex();

	test('the previous array when nothing changed, a new one when something did', () => {
		const parts = {ranks: rankSet([a]), checkpoints: index, scheduler: null};
		const first = readinessOfJobs(parts, NONE, T, null);
		expect(first.map(r => r.job)).toEqual(['torchrun:100']);
		expect(readinessOfJobs(parts, NONE, T, first)).toBe(first);
		// A new but equal rank set: still the same array.
		expect(readinessOfJobs({...parts, ranks: rankSet([a])}, NONE, T, first)).toBe(first);
		const changed = readinessOfJobs(parts, {graceS: 5, maxWorkAtRiskS: null}, T, first);
		expect(changed).not.toBe(first);
		expect(changed[0]?.leadS).toBe(5);
	});

	test('leaves out the run dir’s job while its first scan runs', () => {
		const set = rankSet([a, b], {runDirMatch: {jobs: ['torchrun:200'], evidence: null}});
		const scanning: CheckpointIndex = {...index, scanning: true};
		expect(
			readinessOfJobs({ranks: set, checkpoints: scanning, scheduler: null}, NONE, T, null).map(r => r.job),
		).toEqual(['torchrun:100']);
		expect(readinessOfJobs({ranks: set, checkpoints: index, scheduler: null}, NONE, T, null).map(r => r.job)).toEqual([
			'torchrun:100',
			'torchrun:200',
		]);
	});
});

describe('saveTimes and savesNeverComplete', () => {
	const idx = (writes: readonly (number | null)[], extra: Partial<CheckpointIndex> = {}) =>
		checkpointIndex({checkpoints: writes.map((w, i) => checkpoint(100 * (i + 1), 60 - i, {writeS: w})), ...extra});

	test('the p50 of an odd count is the middle one, of an even count the mean of the two', () => {
		expect(saveTimes(idx([30, 10, 20]))).toEqual({p50: 20, max: 30, samples: 3, slowest: 'checkpoint_step_100'});
		expect(saveTimes(idx([10, 40, 20, 30]))).toEqual({p50: 25, max: 40, samples: 4, slowest: 'checkpoint_step_200'});
	});

	test('last, best, partial and unmeasured saves are passed over', () => {
		const index = checkpointIndex({
			checkpoints: [
				checkpoint(100, 50, {writeS: 10}),
				checkpoint(200, 40, {writeS: 500, kind: 'last'}),
				checkpoint(300, 30, {writeS: 400, kind: 'best'}),
				checkpoint(400, 20, {writeS: 300, status: 'partial'}),
				checkpoint(500, 10, {writeS: null}),
			],
		});
		expect(saveTimes(index)).toEqual({p50: 10, max: 10, samples: 1, slowest: 'checkpoint_step_100'});
	});

	test('a write time as long as the median interval is not one save', () => {
		// The fixture's median interval is 900 s.
		expect(saveTimes(idx([20, 900, 899]))).toEqual({p50: 459.5, max: 899, samples: 2, slowest: 'checkpoint_step_300'});
		expect(saveTimes(idx([900]))).toBeNull();
		expect(saveTimes(null)).toBeNull();
	});

	test('never complete: two partial saves and none complete', () => {
		const partial = (step: number) => checkpoint(step, 10, {status: 'partial'});
		expect(savesNeverComplete(checkpointIndex({checkpoints: [partial(1), partial(2)]}))).toBe(true);
		// One partial may be the save being written now.
		expect(savesNeverComplete(checkpointIndex({checkpoints: [partial(1)]}))).toBe(false);
		expect(savesNeverComplete(checkpointIndex({checkpoints: [partial(1), partial(2), checkpoint(3, 1)]}))).toBe(false);
		expect(savesNeverComplete(null)).toBe(false);
	});
});

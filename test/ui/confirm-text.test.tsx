import {afterEach, describe, expect, test} from 'vitest';
import {Box} from 'ink';
import {cleanup, render} from 'ink-testing-library';
import {confirmText} from '../../src/ui/confirm-text.js';
import Overlay, {openConfirmText} from '../../src/ui/overlay.js';
import {INITIAL_STATE, type UiState} from '../../src/ui/state.js';
import {expectFits, signal, twoJobs} from './fixtures.js';

// The confirm box names the one job a signal goes to, how many of its ranks, and whether its save is watched.

afterEach(cleanup);

const set = twoJobs({runDir: '/runs/a'});
const [a, b] = set.jobs as [(typeof set.jobs)[0], (typeof set.jobs)[0]];
const allOfB = {job: b.id, pids: b.ranks.map(r => r.pid), identities: b.ranks, marked: false, of: 3};

describe('confirmText', () => {
	test("all ranks of RUN_DIR's job: the run dir, then what each rank does with the signal", () => {
		const allOfA = {job: a.id, pids: a.ranks.map(r => r.pid), identities: a.ranks, marked: false, of: 2};
		const text = confirmText('save', 'SIGUSR1', allOfA, {job: a, sessionRunDir: '/runs/a'});
		expect(text.title).toBe('Send SIGUSR1 (save) to job torchrun:4242?');
		expect(text.lines).toEqual([
			'all 2 ranks · run dir /runs/a',
			"route: local — from this node to each rank's pid, checked again just before sending",
			'rank 0  pid 10000  handles SIGUSR1',
			'rank 1  pid 10001  handles SIGUSR1',
		]);
	});

	test("another job than RUN_DIR's: its save will not be watched, and the box says so", () => {
		const text = confirmText('emergency', 'SIGTERM', allOfB, {job: b, sessionRunDir: '/runs/a'});
		expect(text.title).toBe('Send SIGTERM (emergency checkpoint) to job torchrun:5353?');
		expect(text.lines[0]).toBe("all 3 ranks · RUN_DIR is not this job's: the save will not be watched");
		expect(text.lines.slice(2).map(l => l.split('  ')[1])).toEqual(['pid 30000', 'pid 30001', 'pid 30002']);
		expect(confirmText('save', 'SIGUSR1', allOfB, {job: b, sessionRunDir: null}).lines[0]).toBe(
			'all 3 ranks · no RUN_DIR given: the save will not be watched',
		);
	});

	test('marked ranks: their count of the job, and only they are listed', () => {
		const withoutHandler = {
			...b,
			ranks: b.ranks.map(r => (r.pid === 30_002 ? {...r, signals: {...r.signals, SIGUSR1: signal('default')}} : r)),
		};
		const marked = {job: b.id, pids: [30_002], identities: b.ranks.slice(2), marked: true, of: 3};
		expect(confirmText('save', 'SIGUSR1', marked, {job: withoutHandler, sessionRunDir: null}).lines).toEqual([
			'1 marked rank of 3 · no RUN_DIR given: the save will not be watched',
			'1 of 1 rank will be refused (listed first)',
			"route: local — from this node to each rank's pid, checked again just before sending",
			'rank 2  pid 30002  NO HANDLER: SIGUSR1 would terminate it — will be refused (the TUI never forces; traintop signal --force does)',
		]);
	});

	test('ranks elsewhere: the local route leaves them out, and for a SLURM job the box names the command that does not', () => {
		// Two of a 4-rank SLURM step run here; the other two on another node.
		const task = {scheduler: 'slurm', jobId: '42', stepId: '0', restartCount: 0, taskId: 0};
		const here = {
			...b,
			id: 'slurm:42.0',
			identity: 'scheduler' as const,
			worldSize: 4,
			ranks: b.ranks.slice(0, 2),
			task,
		};
		const target = {job: here.id, pids: here.ranks.map(r => r.pid), identities: here.ranks, marked: false, of: 2};
		expect(confirmText('emergency', 'SIGTERM', target, {job: here, sessionRunDir: null}).lines.slice(1, 4)).toEqual([
			// Its ranks here exit; whether srun ends the others depends on a setting traintop cannot read.
			'MAY END THE WHOLE JOB: the 2 chosen ranks exit, and srun ends the whole step when a task exits with an error if it runs with --kill-on-bad-exit (or KillOnBadExit=1): every one of its 4 ranks would end, not only the 2 chosen',
			"route: local — from this node to each rank's pid, checked again just before sending",
			'2 of its 4 ranks run elsewhere and get nothing: `traintop signal emergency --slurm-job 42` reaches every task (scancel)',
		]);
		const rendezvous = {...here, id: 'rdzv:10.0.0.1:29500', identity: 'rendezvous' as const, task: null};
		expect(
			confirmText('save', 'SIGUSR1', {...target, job: rendezvous.id}, {job: rendezvous, sessionRunDir: null}).lines[2],
		).toBe('2 of its 4 ranks run elsewhere and get nothing: signal them on their nodes');
	});

	test('an emergency to one marked rank of a torchrun job: the box says every rank ends, before the route', () => {
		const marked = {job: b.id, pids: [30_000], identities: b.ranks.slice(0, 1), marked: true, of: 3};
		expect(confirmText('emergency', 'SIGTERM', marked, {job: b, sessionRunDir: null}).lines.slice(0, 2)).toEqual([
			'1 marked rank of 3 · no RUN_DIR given: the save will not be watched',
			'ENDS THE WHOLE JOB: the 1 chosen rank exits, and torchrun (the elastic agent) stops every rank when one fails: every one of its 3 ranks ends, not only the 1 chosen',
		]);
		// A save does not end the rank: nothing to warn of.
		expect(confirmText('save', 'SIGUSR1', marked, {job: b, sessionRunDir: null}).lines[1]).toMatch(/^route: local/);
	});

	test('a refused rank among many is counted at the top and listed first, so a box that scrolls shows it at once', () => {
		// 64 ranks of one job; the last has no SIGUSR1 handler. The box scrolls past ~7 rows at 80×24.
		const many = Array.from({length: 64}, (_, i) => ({
			...b.ranks[0]!,
			rank: i,
			pid: 40_000 + i,
			signals: {...b.ranks[0]!.signals, SIGUSR1: signal(i === 63 ? 'default' : 'handled')},
		}));
		const big = {...b, ranks: many, worldSize: 64};
		const all = {job: big.id, pids: many.map(r => r.pid), identities: many, marked: false, of: 64};
		const lines = confirmText('save', 'SIGUSR1', all, {job: big, sessionRunDir: null}).lines;
		expect(lines[1]).toBe('1 of 64 ranks will be refused (listed first)');
		expect(lines[3]).toMatch(/^rank 63 {2}pid 40063 {2}NO HANDLER: SIGUSR1 would terminate it/);
		expect(lines[4]).toBe('rank 0  pid 40000  handles SIGUSR1');
		expect(lines).toHaveLength(3 + 64);
	});

	test('a job gone since the box opened: nothing will be sent', () => {
		expect(confirmText('save', 'SIGUSR1', allOfB, {job: null, sessionRunDir: null}).lines).toEqual([
			'job torchrun:5353 is no longer running: nothing will be sent',
		]);
	});
});

test('the overlay draws the box for the target the state holds, not for the other job', () => {
	const ui: UiState = {...INITIAL_STATE, mode: 'confirm', confirm: {action: 'save', choice: 'cancel', target: allOfB}};
	// The box floats over the screen it is given (the panes' place): a 100×20 one, as the app's Screen is.
	const {lastFrame} = render(
		<Box width={100} height={19}>
			<Overlay
				ui={ui}
				confirm={openConfirmText(ui, 'SIGUSR1', {jobs: set.jobs, runDir: '/runs/a', nodes: [], now: 0})}
				signal="SIGUSR1"
				help={{entries: [], notes: [], title: 'traintop keys'}}
				width={100}
				height={20}
			/>
		</Box>,
	);
	const frame = expectFits(lastFrame(), 100, 19).join('\n');
	expect(frame).toContain('Send SIGUSR1 (save) to job torchrun:5353?');
	expect(frame).toContain("all 3 ranks · RUN_DIR is not this job's");
	expect(frame).toContain('pid 30001');
	expect(frame).not.toContain('pid 10000');
	expect(frame).toContain('▸ Cancel');
});

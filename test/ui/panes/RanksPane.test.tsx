import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import RanksPane, {type Props} from '../../../src/ui/panes/RanksPane.js';
import {
	endedJob,
	expectFits,
	frameLines,
	jobSet,
	NOW,
	rankSet,
	renderOnTerminal,
	signal,
	twoJobs,
} from '../fixtures.js';

afterEach(cleanup);

const NONE = new Set<number>();
const base: Props = {
	ranks: rankSet(8),
	error: null,
	cursor: 0,
	marked: NONE,
	width: 80,
	height: 12,
	now: NOW,
	compact: true,
};

/** Rank numbers of the rank rows drawn, top to bottom. */
function rankRows(frame: string | undefined): number[] {
	return frameLines(frame)
		.map(line => /^[› ][● ] +(\d+) +\d+ /.exec(line))
		.filter(match => match !== null)
		.map(match => Number(match[1]));
}

function rowOf(frame: string | undefined, rank: number): string {
	const row = frameLines(frame).find(line => new RegExp(`^[› ][● ] +${rank} +\\d+ `).test(line));
	if (row === undefined) throw new Error(`no row for rank ${rank} in\n${frame}`);
	return row;
}

describe('RanksPane', () => {
	test('a title, a column header and a row per rank', () => {
		const {lastFrame} = render(<RanksPane {...base} />);
		const lines = expectFits(lastFrame(), 80, 12);
		// Cut at 80 columns, with an ellipsis.
		expect(lines[0]).toBe('RANKS 8 (world 8) · job torchrun:9999 · target: all · launcher 9999 torchrun --…');
		expect(lines[1]).toMatch(/RANK +PID +ST +CPU% +RSS +GPU +WRK SIGNALS/);
		expect(rankRows(lastFrame())).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
		expect(rowOf(lastFrame(), 3)).toMatch(/^ {2} +3 +10003 S +98% +3\.1 GiB +12\.0 GiB +2 TERM✓ INT✓ USR1✓ USR2✗$/);
	});

	test('ignored, blocked and pending signals are told apart from handled ones', () => {
		const set = rankSet(2, {}, n =>
			n === 1
				? {
						signals: {
							SIGTERM: signal('ignored'),
							SIGINT: signal('handled', {pending: true}),
							SIGUSR1: signal('handled', {blocked: true}),
							SIGUSR2: signal('default'),
						},
					}
				: {},
		);
		const {lastFrame} = render(<RanksPane {...base} ranks={set} />);
		expect(rowOf(lastFrame(), 1)).toMatch(/TERMign INT✓P USR1✓B USR2✗$/);
		expect(rowOf(lastFrame(), 0)).toMatch(/TERM✓ INT✓ USR1✓ USR2✗$/);
	});

	test('the wide form shows every watched signal and the command, commands in one column', () => {
		const set = rankSet(3, {}, n =>
			n === 1
				? {signals: {...rankSet(1).ranks[0]!.signals, SIGTERM: signal('ignored', {blocked: true, pending: true})}}
				: {},
		);
		const {lastFrame} = renderOnTerminal(<RanksPane {...base} ranks={set} width={130} compact={false} />, 130);
		const lines = expectFits(lastFrame(), 130, 12);
		expect(lines[1]).toMatch(/SIGNALS +COMMAND$/);
		expect(rowOf(lastFrame(), 0)).toMatch(
			/TERM✓ INT✓ USR1✓ USR2✗ CONT- HUP✗ QUIT✗ {5}python3 -u train\.py --config big\.yaml$/,
		);
		expect(rowOf(lastFrame(), 1)).toMatch(
			/TERMignBP INT✓ USR1✓ USR2✗ CONT- HUP✗ QUIT✗ python3 -u train\.py --config big\.yaml$/,
		);
		const commandColumn = lines[1]!.indexOf('COMMAND');
		for (const rank of [0, 1, 2]) expect(rowOf(lastFrame(), rank).indexOf('python3')).toBe(commandColumn);
	});

	test('the cursor row has › and marked targets ●; the title counts the targets', () => {
		const {lastFrame} = render(<RanksPane {...base} cursor={2} marked={new Set([10_002, 10_005])} />);
		expect(rowOf(lastFrame(), 2)).toMatch(/^›● /);
		expect(rowOf(lastFrame(), 5)).toMatch(/^ ● /);
		expect(rowOf(lastFrame(), 0)).toMatch(/^ {2} /);
		expect(frameLines(lastFrame()).filter(line => line.startsWith('›'))).toHaveLength(1);
		expect(frameLines(lastFrame())[0]).toContain('target: 2 marked');
	});

	test('a stalled rank: S! on its row and STALLED in the title', () => {
		const {lastFrame} = render(<RanksPane {...base} ranks={rankSet(4, {}, n => (n === 2 ? {stalled: true} : {}))} />);
		expect(rowOf(lastFrame(), 2)).toMatch(/ S! /);
		expect(rowOf(lastFrame(), 1)).not.toContain('S!');
		expect(frameLines(lastFrame())[0]).toContain('1 STALLED');
	});

	test('the SLURM job.step and its restarts, then the launcher, in the title line', () => {
		const set = rankSet(2, {}, n => ({
			task: {scheduler: 'slurm', jobId: '998', stepId: '0', restartCount: 1, taskId: n},
		}));
		const {lastFrame} = render(<RanksPane {...base} ranks={set} width={100} />);
		expect(frameLines(lastFrame())[0]).toMatch(/ · SLURM 998\.0, 1 restart · launcher 9999 /);
		const first = rankSet(2, {}, n => ({
			task: {scheduler: 'slurm', jobId: '998', stepId: null, restartCount: 0, taskId: n},
		}));
		expect(frameLines(render(<RanksPane {...base} ranks={first} />).lastFrame())[0]).toContain(' · SLURM 998 · ');
	});

	describe('64 ranks in 10 lines', () => {
		const ranks = rankSet(64);

		test.each([0, 1, 5, 31, 32, 62, 63])('cursor %i stays visible, with "+N more"', cursor => {
			const {lastFrame} = render(<RanksPane {...base} ranks={ranks} cursor={cursor} height={10} />);
			const lines = expectFits(lastFrame(), 80, 10);
			const rows = rankRows(lastFrame());
			expect(rows).toHaveLength(10 - 3); // title, header, "+N more"
			expect(rows).toContain(cursor);
			expect(rowOf(lastFrame(), cursor)).toMatch(/^›/);
			// A contiguous window of the list.
			expect(rows).toEqual(Array.from({length: rows.length}, (_, i) => rows[0]! + i));
			const above = rows[0]!;
			const below = 64 - rows.at(-1)! - 1;
			expect(lines.at(-1)).toBe(`+${64 - rows.length} more: ${above} above, ${below} below`);
		});

		test('the first and last ranks sit at the window edges, not mid-screen', () => {
			expect(rankRows(render(<RanksPane {...base} ranks={ranks} cursor={0} height={10} />).lastFrame())[0]).toBe(0);
			expect(rankRows(render(<RanksPane {...base} ranks={ranks} cursor={63} height={10} />).lastFrame()).at(-1)).toBe(
				63,
			);
		});

		test('a cursor out of range is clamped, never lost', () => {
			const {lastFrame} = render(<RanksPane {...base} ranks={ranks} cursor={500} height={10} />);
			expect(rowOf(lastFrame(), 63)).toMatch(/^›/);
		});

		test('every height from 0 to 20 is respected at 60, 80 and 100 columns', () => {
			for (const width of [60, 80, 100]) {
				for (let height = 0; height <= 20; height++) {
					const {lastFrame, unmount} = render(
						<RanksPane {...base} ranks={ranks} cursor={40} width={width} height={height} compact={width < 100} />,
					);
					expectFits(lastFrame(), width, height);
					if (height >= 2) expect(rankRows(lastFrame())).toContain(40);
					unmount();
				}
			}
		});
	});

	test('no ranks yet, no error: where they are looked for', () => {
		const {lastFrame} = render(<RanksPane {...base} ranks={null} />);
		const lines = expectFits(lastFrame(), 80, 12);
		expect(lines).toHaveLength(2);
		expect(lines[1]).toMatch(/^no ranks found \(looking for your processes with RANK/);
	});

	test("an empty rank set reads the same, with the app's hint", () => {
		const {lastFrame} = render(<RanksPane {...base} ranks={jobSet([])} searchHint={"--match 'train\\.py'"} />);
		expect(frameLines(lastFrame())[1]).toBe("no ranks found (--match 'train\\.py')");
	});

	test('a --pid whose process is gone: the sampler says the job ended, not "use --pid"', () => {
		const search = 'process 4242 is not running: the job it started has ended, or the pid is wrong';
		const {lastFrame} = render(<RanksPane {...base} ranks={{...jobSet([]), search}} width={120} />);
		expect(frameLines(lastFrame())[1]).toBe(`no ranks found (${search})`);
	});

	test('a failed scan: the error, instead of the ranks when there are none', () => {
		const {lastFrame} = render(<RanksPane {...base} ranks={null} error="EACCES /proc/4242/status" height={1} />);
		expect(expectFits(lastFrame(), 80, 1)[0]).toBe('RANKS rank scan failed: EACCES /proc/4242/status');
	});

	test('a failed scan with earlier ranks kept: the ranks, and the error in the title', () => {
		const {lastFrame} = render(<RanksPane {...base} error="EACCES /proc/4242/status" />);
		expect(frameLines(lastFrame())[0]).toContain('last scan failed: EACCES');
		expect(rankRows(lastFrame())).toHaveLength(8);
	});

	test('a stopped rank: T in its state column and STOPPED in the title', () => {
		const set = rankSet(3, {}, n => (n === 1 ? {stopped: true, state: 'T'} : {}));
		const {lastFrame} = render(<RanksPane {...base} ranks={set} />);
		expect(rowOf(lastFrame(), 1)).toMatch(/^ {2} +1 +10001 T {2}/);
		expect(rowOf(lastFrame(), 0)).toMatch(/^› +0 +10000 S {2}/);
		expect(frameLines(lastFrame())[0]).toContain('1 STOPPED');
	});

	test('one job of which only some local ranks run: said in the title', () => {
		const set = rankSet(2);
		const partial = jobSet([{...set.jobs[0]!, localWorldSize: 4, allLocalRanksPresent: false}]);
		const {lastFrame} = render(<RanksPane {...base} ranks={partial} width={100} />);
		expect(frameLines(lastFrame())[0]).toContain(' · 2 of 4 local ranks · ');
	});
});

describe('RanksPane with two jobs', () => {
	const set = twoJobs({runDir: '/runs/a'});

	test("a bold header per job above its ranks; the title names the cursor's job as the target", () => {
		const {lastFrame} = render(<RanksPane {...base} ranks={set} cursor={3} width={100} />);
		const lines = expectFits(lastFrame(), 100, 12);
		expect(lines[0]).toBe('RANKS 5 in 2 jobs · target: job torchrun:5353 (all 3 ranks)');
		expect(lines[1]).toMatch(/RANK +PID +ST/);
		expect(lines[2]).toBe(
			'JOB torchrun:4242 · 2 ranks (world 2) · run dir /runs/a · launcher 4242 torchrun --nproc_per_node 2…',
		);
		expect(lines[3]).toMatch(/^ {2} +0 +10000 S /);
		expect(lines[4]).toMatch(/^ {2} +1 +10001 S /);
		expect(lines[5]).toBe(
			'JOB torchrun:5353 · 3 ranks (world 3) · launcher 5353 torchrun --nproc_per_node 3 finetune.py',
		);
		expect(lines[6]).toMatch(/^ {2} +0 +30000 S /);
		// Cursor 3 is job B's second rank (the cursor counts ranks, not lines).
		expect(lines[7]).toMatch(/^› +1 +30001 S /);
		expect(lines[8]).toMatch(/^ {2} +2 +30002 S /);
		expect(lines).toHaveLength(9);
	});

	test('a process that only claims a job is drawn apart under its ranks, never a row the cursor reaches', () => {
		const claimed = twoJobs(
			{
				unproven: [
					{
						pid: 777,
						ppid: 1,
						rank: 1,
						cmd: 'python3 victim.py',
						membership: {proven: false, reason: 'orphan'},
					},
				],
			},
			{},
		);
		// Cursor 2: the third rank, job B's rank 0: the claimant's line is not counted.
		const {lastFrame} = render(<RanksPane {...base} ranks={claimed} cursor={2} width={120} height={14} />);
		const lines = expectFits(lastFrame(), 120, 14);
		expect(lines[0]).toBe('RANKS 5 in 2 jobs · target: job torchrun:5353 (all 3 ranks)');
		expect(lines[4]).toMatch(/^ {2} +1 +10001 S /);
		expect(lines[5]).toMatch(
			/^ {3}pid 777 \(rank 1\) claims job torchrun:4242, not proven: only its environment names it \(its parent is PID 1/,
		);
		expect(lines[6]).toMatch(/^JOB torchrun:5353 /);
		expect(lines[7]).toMatch(/^› +0 +30000 S /);
		expect(lines.filter(line => line.includes('777'))).toHaveLength(1);
	});

	test('marks are counted in their job header and make the title say marked', () => {
		const {lastFrame} = render(<RanksPane {...base} ranks={set} cursor={0} marked={new Set([10_001])} width={100} />);
		const lines = frameLines(lastFrame());
		expect(lines[0]).toContain('target: job torchrun:4242 (1 marked)');
		expect(lines[2]).toMatch(/^JOB torchrun:4242 · 2 ranks \(world 2\) · 1 marked · /);
		expect(lines[5]).not.toContain('marked');
		expect(lines[4]).toMatch(/^ ● +1 +10001 /);
	});

	test("a job whose launcher is alive and has no ranks: its header and 'no ranks (launcher alive)'", () => {
		const restarting = jobSet([set.jobs[0]!, {...set.jobs[1]!, ranks: []}]);
		const {lastFrame} = render(<RanksPane {...base} ranks={restarting} width={100} />);
		const lines = frameLines(lastFrame());
		expect(lines[5]).toMatch(/^JOB torchrun:5353 · 0 ranks \(world 3\)/);
		expect(lines[6]).toBe('   no ranks (launcher alive)');
	});

	test('scrolled: the cursor and its job header stay on screen, with "+N more" counting ranks', () => {
		const big = jobSet([
			set.jobs[0]!,
			{
				...set.jobs[1]!,
				ranks: Array.from({length: 30}, (_, n) => ({...set.jobs[1]!.ranks[0]!, rank: n, pid: 30_000 + n})),
			},
		]);
		for (const cursor of [0, 1, 2, 10, 20, 31]) {
			const {lastFrame, unmount} = render(<RanksPane {...base} ranks={big} cursor={cursor} height={8} />);
			const lines = expectFits(lastFrame(), 80, 8);
			const at = lines.findIndex(line => line.startsWith('›'));
			expect(at, `cursor ${cursor} in\n${lastFrame()}`).toBeGreaterThan(1);
			const header = cursor < 2 ? 'JOB torchrun:4242' : 'JOB torchrun:5353';
			const headerAt = lines.findIndex(line => line.startsWith(header));
			expect(headerAt, `header of cursor ${cursor} in\n${lastFrame()}`).toBeGreaterThan(1);
			expect(headerAt).toBeLessThan(at);
			expect(lines.at(-1)).toMatch(/^\+\d+ more: \d+ above, \d+ below$/);
			unmount();
		}
	});

	test('every height from 0 to 16 is respected, and from 2 rows on the cursor is drawn', () => {
		for (let height = 0; height <= 16; height++) {
			for (const cursor of [0, 1, 2, 4]) {
				const {lastFrame, unmount} = render(
					<RanksPane {...base} ranks={set} cursor={cursor} height={height} width={60} />,
				);
				const lines = expectFits(lastFrame(), 60, height);
				if (height >= 2)
					expect(
						lines.filter(line => line.startsWith('›')),
						`height ${height}`,
					).toHaveLength(1);
				unmount();
			}
		}
	});
});

describe('RanksPane with no job running', () => {
	test('the jobs that ended, newest first, instead of "no ranks found"', () => {
		const ended = jobSet([], {
			ended: [
				endedJob('torchrun:4242', 120, {exit: {code: 99, signal: null}}),
				endedJob('slurm:998.0', 30, {exit: {code: null, signal: 'SIGKILL'}}),
			],
		});
		const {lastFrame} = render(<RanksPane {...base} ranks={ended} />);
		const lines = expectFits(lastFrame(), 80, 12);
		expect(lines[0]).toBe('RANKS');
		expect(lines[1]).toMatch(/^job slurm:998\.0 ended \d\d:\d\d:\d\d, killed by SIGKILL$/);
		expect(lines[2]).toMatch(/^job torchrun:4242 ended \d\d:\d\d:\d\d, exit 99 — saved for requeue$/);
		expect(lastFrame()).not.toContain('no ranks found');
		// One line: the newest, beside the title.
		const one = render(<RanksPane {...base} ranks={ended} height={1} />);
		expect(expectFits(one.lastFrame(), 80, 1)[0]).toMatch(/^RANKS job slurm:998\.0 ended /);
	});
});

describe('narrow: the signals the keys send stay visible', () => {
	test('at 60 columns the save and emergency marks are kept, other signals dropped first', () => {
		const {lastFrame} = render(<RanksPane {...base} width={60} signalsFirst={['SIGUSR1', 'SIGTERM']} />);
		const rows = frameLines(lastFrame()).filter(line => /^[› ][● ] +\d+ /.test(line));
		expect(rows.length).toBeGreaterThan(0);
		for (const row of rows) {
			expect(row).toMatch(/USR1\S+ TERM\S+$/);
			expect(row).not.toContain('USR2');
			expect([...row].length).toBeLessThanOrEqual(60);
		}
		// Without them first, the old order cut USR1 off at this width.
		const old = frameLines(render(<RanksPane {...base} width={60} />).lastFrame()).find(line => / 0 /.test(line));
		expect(old).not.toContain('USR1');
	});

	test('a save signal set to SIGUSR2 (--save-signal) is the one kept first', () => {
		const {lastFrame} = render(<RanksPane {...base} width={60} signalsFirst={['SIGUSR2', 'SIGTERM']} />);
		expect(frameLines(lastFrame()).find(line => /^[› ][● ] +0 /.test(line))).toMatch(/USR2\S+ TERM\S+$/);
	});
});

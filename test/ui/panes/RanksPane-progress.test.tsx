import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import type {JobProgress} from '../../../src/core/progress-types.js';
import {ncclRasLines} from '../../../src/format/nccl-ras.js';
import RanksPane, {type Props} from '../../../src/ui/panes/RanksPane.js';
import {expectFits, frameLines, NOW, rankSet, twoJobs} from '../fixtures.js';
import {recordedRasState} from '../../helpers/nccl-ras-state.js';
import {hungProgress} from '../../helpers/progress-data.js';

// A job's progress on the ranks pane: its verdict in the title (one job) or its header (several), a line naming the
// odd rank out and who waits when it is stalled or hung, and NCCL RAS's first line when the service answers.

afterEach(cleanup);

const NONE = new Set<number>();
const base: Props = {ranks: rankSet(4), error: null, cursor: 0, marked: NONE, width: 200, height: 12, now: NOW};

function hung(job: string, rank: number, pid: number): JobProgress {
	const progress = hungProgress(job, {rank, pid}, {ranks: [0, 2, 3], pids: [1, 2, 3]}, NOW);
	return {...progress, evidence: []};
}

describe('progress on the ranks pane', () => {
	test('one job: the title says HUNG and for how long, a line names the odd rank and the ranks waiting', () => {
		const job = base.ranks!.jobs[0]!;
		const {lastFrame} = render(<RanksPane {...base} progress={[hung(job.id, 1, job.ranks[1]!.pid)]} />);
		const lines = expectFits(lastFrame(), 200, 12);
		expect(lines[0]).toContain(`job ${job.id} · HUNG 4 min`);
		const line = lines.find(l => l.includes('progress:'));
		expect(line).toMatch(
			/^ {3}progress: HUNG in a collective since \d\d:\d\d:\d\d \(4 min\) — rank 1 \(pid \d+\) sleeping in hrtimer_nanosleep since \d\d:\d\d:\d\d \(4 min\); ranks 0, 2, 3 waiting in futex_do_wait for 4 min/,
		);
	});

	test('a progressing job has its word in the title and no line of its own', () => {
		const job = base.ranks!.jobs[0]!;
		const going: JobProgress = {...hung(job.id, 1, 1), verdict: 'progressing', odd: [], waiting: []};
		const {lastFrame} = render(<RanksPane {...base} progress={[going]} />);
		const lines = frameLines(lastFrame());
		expect(lines[0]).toContain('· progressing');
		expect(lines.some(l => l.includes('progress:'))).toBe(false);
	});

	test('several jobs: the stuck job’s header says it, and its line is under its header', () => {
		const set = twoJobs();
		const second = set.jobs[1]!;
		const {lastFrame} = render(
			<RanksPane {...base} ranks={set} height={16} progress={[hung(second.id, 0, second.ranks[0]!.pid)]} />,
		);
		const lines = frameLines(lastFrame());
		const header = lines.findIndex(l => l.startsWith(`JOB ${second.id}`));
		expect(lines[header]).toContain('HUNG 4 min');
		expect(lines[header + 1]).toMatch(/^ {3}progress: HUNG in a collective/);
	});

	test('NCCL RAS’s first line while the service answers; none while it does not', () => {
		const ras = recordedRasState(NOW - 2000);
		const first = ncclRasLines(ras, NOW)[0] ?? null;
		const {lastFrame} = render(<RanksPane {...base} nccl={first} />);
		expect(frameLines(lastFrame())).toContain(
			'   NCCL RAS 2.28.9: 1 communicator group — group 0: 1 comm, 1 rank, RUNNING, errors OK',
		);
		const without = render(<RanksPane {...base} nccl={null} />);
		expect(without.lastFrame()).not.toContain('NCCL');
	});
});

import {describe, expect, it} from 'vitest';
import type {ExitStatus, JobEvent, RankProcess, Snapshot} from '../../src/core/types.js';
import {jobExitStatus, nodeExitLine} from '../../src/fleet/node-exit-words.js';
import {
	exitState,
	exitsOnLinks,
	exitsOnSnapshot,
	JOB_END_SCANS,
	type NodeExit,
	narrowExits,
	nodeSettled,
	startExits,
} from '../../src/fleet/node-exits.js';
import {job, jobSet, NOW, rank} from '../ui/fixtures.js';
import {FakeFleet, snapshotOf} from '../ui/fleet/fleet-fixtures.js';

// After an emergency across nodes: each node's share of the job followed in its own snapshots (pure, fed by the
// test): ranks gone from the scan, how they ended when an exit event says, the job's end on the node, a node lost
// meanwhile never counted as exited, and the words each case gets.

const JOB = 'slurm:998.0';
const ranksOf = (node: string, numbers: number[]): RankProcess[] =>
	numbers.map(n => ({...rank(n, {pid: 600 + n, startTime: 50 + n, host: node}), job: JOB}));
const n1 = ranksOf('node1', [0, 1]);
const n2 = ranksOf('node2', [2, 3]);
const sends = [
	{node: 'node1', job: JOB, ranks: n1},
	{node: 'node2', job: JOB, ranks: n2},
];
const WATCH = {timedOut: false, timeoutS: 60};
const TIMED_OUT = {timedOut: true, timeoutS: 60};
const REQUEUE: ExitStatus = {code: 99, signal: null};

let scans = 0;
/** A node's snapshot with a new rank scan listing `ranks` (none: the job is gone there), carrying `events`. */
function scan(node: string, ranks: RankProcess[], events: JobEvent[] = []): Snapshot {
	scans += 1;
	const set = jobSet(ranks.length > 0 ? [job(JOB, ranks)] : [], {sampledAt: NOW + scans});
	return snapshotOf(node, NOW, {ranks: set, events});
}

/** A later snapshot of the node that carries its last scan again (ranks are scanned less often than sent). */
const again = (previous: Snapshot): Snapshot => ({...previous, events: []});

function rankExited(r: RankProcess, exit: ExitStatus | null, jobId = JOB): JobEvent {
	return {time: NOW, kind: 'rank-exited', job: jobId, rank: r.rank, pid: r.pid, level: 'warn', text: '', exit};
}

function jobEnded(exit: ExitStatus | null): JobEvent {
	return {time: NOW, kind: 'job-ended', job: JOB, rank: null, pid: null, level: 'warn', text: '', exit};
}

const lines = (exits: readonly NodeExit[], watch = WATCH) => exits.map(one => nodeExitLine(one, 'SIGTERM', watch));

describe('each node of the job after an emergency', () => {
	it('ranks gone from a scan, with exit events: exited with their code; the other node still waited for', () => {
		let exits = startExits(sends);
		expect(lines(exits)).toEqual(['node1: waiting for ranks 0, 1 to exit…', 'node2: waiting for ranks 2, 3 to exit…']);
		exits = exitsOnSnapshot(
			exits,
			'node1',
			scan('node1', [], [rankExited(n1[0]!, REQUEUE), rankExited(n1[1]!, REQUEUE)]),
		);
		expect(exits.map(exitState)).toEqual(['exited', 'running']);
		expect(lines(exits)).toEqual([
			'node1: ranks 0, 1 exited after SIGTERM (exit 99 — saved for requeue)',
			'node2: waiting for ranks 2, 3 to exit…',
		]);
		// node2's scan still lists rank 3 at the timeout: said as still running, with how rank 2 ended.
		exits = exitsOnSnapshot(exits, 'node2', scan('node2', [n2[1]!], [rankExited(n2[0]!, REQUEUE)]));
		expect(lines(exits, TIMED_OUT)[1]).toBe(
			'node2: rank 3 still running 60 s after SIGTERM; rank 2 exited (exit 99 — saved for requeue)',
		);
	});

	it("the job's end on the node gives the exit its reaped ranks did not; settled then, or after a few snapshots", () => {
		let exits = startExits(sends.slice(0, 1));
		// The launcher reaped its ranks before the agent looked: gone, how unknown.
		exits = exitsOnSnapshot(exits, 'node1', scan('node1', [], [rankExited(n1[0]!, null), rankExited(n1[1]!, null)]));
		expect(lines(exits)).toEqual(['node1: ranks 0, 1 exited after SIGTERM (exit status unknown)']);
		expect(nodeSettled(exits[0]!)).toBe(false);
		exits = exitsOnSnapshot(exits, 'node1', scan('node1', [], [jobEnded(REQUEUE)]));
		expect(lines(exits)).toEqual(['node1: ranks 0, 1 exited after SIGTERM (exit 99 — saved for requeue)']);
		expect(nodeSettled(exits[0]!)).toBe(true);
		expect(jobExitStatus(exits)).toEqual(REQUEUE);

		// No end comes (a launcher that lives on): settled after JOB_END_SCANS more rank scans all the same; snapshots
		// that carry the same scan do not count (the launcher's end could not have been seen in them).
		const gone = scan('node1', []);
		let waiting = exitsOnSnapshot(startExits(sends.slice(0, 1)), 'node1', gone);
		for (let i = 0; i < 5; i++) waiting = exitsOnSnapshot(waiting, 'node1', again(gone));
		expect(nodeSettled(waiting[0]!)).toBe(false);
		for (let i = 1; i < JOB_END_SCANS; i++) waiting = exitsOnSnapshot(waiting, 'node1', scan('node1', []));
		expect(nodeSettled(waiting[0]!)).toBe(false);
		waiting = exitsOnSnapshot(waiting, 'node1', scan('node1', []));
		expect(nodeSettled(waiting[0]!)).toBe(true);
	});

	it('ranks that ended differently are told one by one; another job, or a reused pid, is not these ranks', () => {
		let exits = startExits(sends.slice(0, 1));
		const otherJob = rankExited(n1[0]!, {code: 1, signal: null}, 'torchrun:77');
		exits = exitsOnSnapshot(exits, 'node1', scan('node1', n1, [otherJob]));
		expect(exitState(exits[0]!)).toBe('running');
		// Rank 1's pid is another process now (a new start time): rank 1 is gone.
		const reused = {...n1[1]!, startTime: 9999};
		exits = exitsOnSnapshot(exits, 'node1', scan('node1', [reused], [rankExited(n1[0]!, REQUEUE)]));
		exits = exitsOnSnapshot(
			exits,
			'node1',
			scan('node1', [reused], [rankExited(n1[1]!, {code: null, signal: 'SIGKILL'})]),
		);
		expect(lines(exits)).toEqual([
			'node1: ranks 0, 1 exited after SIGTERM (rank 0 exit 99 — saved for requeue, rank 1 killed by SIGKILL)',
		]);
	});

	it('a node lost while its ranks are listed is lost, not exited; one lost after they exited stays exited', () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		let exits = exitsOnSnapshot(startExits(sends), 'node1', scan('node1', [], [rankExited(n1[0]!, REQUEUE)]));
		fleet.lose('node1', 'agent exited 255').lose('node2', 'agent killed by SIGKILL');
		exits = exitsOnLinks(exits, fleet.current().nodes, fleet.now);
		expect(exits.map(exitState)).toEqual(['exited', 'lost']);
		expect(exits.map(nodeSettled)).toEqual([false, true]);
		expect(lines(exits)[1]).toBe('node2 lost: agent killed by SIGKILL; reconnecting — ranks 2, 3 not seen to exit');
		// Back, its new agent's scan without them: still lost, never "exited" (they may have died with the node).
		exits = exitsOnSnapshot(exits, 'node2', scan('node2', []));
		expect(exitState(exits[1]!)).toBe('lost');
		expect(lines(exits)[1]).toMatch(/not seen to exit \(gone when its agent came back: how is unknown\)$/);
	});

	it('a node back with its ranks still listed is followed again: their exit, seen by its new agent, counts', () => {
		const fleet = new FakeFleet(['node2']).hello('node2');
		fleet.lose('node2', 'agent exited 255');
		let exits = exitsOnLinks(startExits(sends.slice(1)), fleet.current().nodes, fleet.now);
		expect(exitState(exits[0]!)).toBe('lost');
		exits = exitsOnSnapshot(exits, 'node2', scan('node2', n2));
		expect(exitState(exits[0]!)).toBe('running');
		exits = exitsOnSnapshot(
			exits,
			'node2',
			scan('node2', [], [rankExited(n2[0]!, REQUEUE), rankExited(n2[1]!, REQUEUE)]),
		);
		expect(lines(exits)).toEqual(['node2: ranks 2, 3 exited after SIGTERM (exit 99 — saved for requeue)']);
	});

	it('narrowed to the ranks the signal reached: a refused rank is not waited for, a node with none is dropped', () => {
		const exits = narrowExits(startExits(sends), [
			{node: 'node2', pid: n2[0]!.pid},
			{node: 'node1', pid: n2[1]!.pid},
		]);
		expect(exits.map(one => [one.node, one.ranks.map(r => r.rank)])).toEqual([['node2', [2]]]);
		// Rank 3 (refused) runs on: node2's share has exited all the same.
		const done = exitsOnSnapshot(exits, 'node2', scan('node2', [n2[1]!], [rankExited(n2[0]!, REQUEUE)]));
		expect(lines(done)).toEqual(['node2: rank 2 exited after SIGTERM (exit 99 — saved for requeue)']);
	});
});

import {describe, expect, test} from 'vitest';
import {buildRankTree, rankIds, type ProcessFacts} from '../../src/ranks/tree.js';

const ME = {pid: 900, uid: 1000};

function p(pid: number, ppid: number, argv: string, env: Record<string, string> | null = {}, uid = 1000): ProcessFacts {
	return {
		pid,
		ppid,
		uid,
		startTime: pid * 10,
		argv: argv.split(' '),
		env: env === null ? null : new Map(Object.entries(env)),
	};
}

const rankEnv = (rank: number) => ({RANK: String(rank), LOCAL_RANK: String(rank), WORLD_SIZE: '2'});

/** A torchrun-shaped tree: shell → torchrun agent → 2 ranks (own sessions) → DataLoader workers, plus traintop. */
const torchrun: ProcessFacts[] = [
	p(1, 0, '/sbin/init'),
	p(100, 1, '/bin/bash', {}),
	p(200, 100, '/usr/bin/python3 /usr/bin/torchrun --nproc-per-node 2 train.py'),
	p(201, 200, '/usr/bin/python3 -u train.py', rankEnv(0)),
	p(202, 200, '/usr/bin/python3 -u train.py', rankEnv(1)),
	p(301, 201, '/usr/bin/python3 -u train.py', rankEnv(0)),
	p(302, 201, '/usr/bin/python3 -u train.py', rankEnv(0)),
	p(303, 202, '/usr/bin/python3 -u train.py', rankEnv(1)),
	// A forkserver child of rank 1 and its own child: both workers of rank 1.
	p(304, 202, '/usr/bin/python3 -c from multiprocessing.forkserver import main', rankEnv(1)),
	p(305, 304, '/usr/bin/python3 -c from multiprocessing.forkserver import main', rankEnv(1)),
	// traintop, started from the same shell.
	p(900, 100, 'traintop', {}),
];

describe('buildRankTree', () => {
	test('torchrun: one row per rank, same-rank descendants grouped as workers, the agent as launcher', () => {
		const tree = buildRankTree(torchrun, {kind: 'env'}, ME);
		expect(tree.ranks.map(r => [r.ids.rank, r.process.pid, r.workers])).toEqual([
			[0, 201, [301, 302]],
			[1, 202, [303, 304, 305]],
		]);
		expect(tree.ranks[0]?.ids).toEqual({rank: 0, localRank: 0, worldSize: 2});
		expect(tree.launcher?.pid).toBe(200);
	});

	test('--pid searches the given process and its descendants only', () => {
		const other = [...torchrun, p(500, 100, 'python3 other.py', rankEnv(0))];
		// Job by job: torchrun's two ranks, then the lone process (a job of its own).
		expect(buildRankTree(other, {kind: 'env'}, ME).ranks.map(r => r.process.pid)).toEqual([201, 202, 500]);
		expect(buildRankTree(other, {kind: 'pid', pid: 200}, ME).ranks.map(r => r.process.pid)).toEqual([201, 202]);
		// --pid on a rank itself: that rank and its workers.
		const one = buildRankTree(other, {kind: 'pid', pid: 202}, ME);
		expect(one.ranks.map(r => [r.process.pid, r.workers])).toEqual([[202, [303, 304, 305]]]);
	});

	test('--match: processes whose command line matches, with their rank-carrying descendants as workers', () => {
		const tree = buildRankTree(torchrun, {kind: 'match', pattern: /-u train\.py/}, ME);
		expect(tree.ranks.map(r => [r.ids.rank, r.process.pid, r.workers])).toEqual([
			[0, 201, [301, 302]],
			[1, 202, [303, 304, 305]],
		]);
		// A matched process without rank variables is still listed, with rank null.
		const plain = [p(100, 1, 'bash'), p(400, 100, 'python3 ddp.py'), p(401, 400, 'python3 ddp.py')];
		const t = buildRankTree(plain, {kind: 'match', pattern: /ddp\.py/}, ME);
		expect(t.ranks.map(r => [r.ids.rank, r.process.pid, r.workers])).toEqual([[null, 400, [401]]]);
	});

	test('SLURM srun tasks: SLURM_PROCID is the rank; slurmstepd (root) is never the launcher', () => {
		const srun = [
			p(1, 0, '/sbin/init', {}, 0),
			p(50, 1, 'slurmstepd: [4242.0]', {}, 0),
			p(51, 50, 'python3 train.py', {SLURM_PROCID: '0', SLURM_LOCALID: '0', SLURM_NTASKS: '2', SLURM_JOB_ID: '4242'}),
			p(52, 50, 'python3 train.py', {SLURM_PROCID: '1', SLURM_LOCALID: '1', SLURM_NTASKS: '2', SLURM_JOB_ID: '4242'}),
		];
		const tree = buildRankTree(srun, {kind: 'env'}, ME);
		expect(tree.ranks.map(r => r.ids)).toEqual([
			{rank: 0, localRank: 0, worldSize: 2},
			{rank: 1, localRank: 1, worldSize: 2},
		]);
		expect(tree.launcher).toBeNull();
	});

	test("other users' processes, traintop itself and its ancestors are never ranks", () => {
		const mixed = [
			p(100, 1, 'bash', rankEnv(0)),
			p(900, 100, 'traintop', rankEnv(0)),
			p(700, 1, 'python3 train.py', rankEnv(0), 1001),
			p(701, 1, 'python3 train.py', rankEnv(1)),
		];
		expect(buildRankTree(mixed, {kind: 'env'}, ME).ranks.map(r => r.process.pid)).toEqual([701]);
	});

	test('a shell is never offered as the launcher, nor is an ancestor of traintop', () => {
		const fromShell = [
			p(100, 1, '/bin/bash'),
			p(201, 100, 'python3 a.py', rankEnv(0)),
			p(202, 100, 'python3 a.py', rankEnv(1)),
		];
		expect(buildRankTree(fromShell, {kind: 'env'}, ME).launcher).toBeNull();
		const viaLauncherThatStartedTraintop = [
			p(200, 1, 'python3 launch.py'),
			p(201, 200, 'python3 a.py', rankEnv(0)),
			p(900, 200, 'traintop'),
		];
		expect(buildRankTree(viaLauncherThatStartedTraintop, {kind: 'env'}, ME).launcher).toBeNull();
	});

	test('Lightning: rank 0 is the started process without rank variables; the ranks it spawns carry LOCAL_RANK', () => {
		const lightning = [
			p(100, 1, 'bash'),
			p(200, 100, 'python3 train.py', {}),
			p(201, 200, 'python3 train.py', {LOCAL_RANK: '1', NODE_RANK: '0', WORLD_SIZE: '2'}),
		];
		const tree = buildRankTree(lightning, {kind: 'env'}, ME);
		// Only what /proc can show: rank 0 sets its variables after exec, so it is found with --match or --pid.
		expect(tree.ranks.map(r => [r.ids.rank, r.process.pid])).toEqual([[1, 201]]);
	});
});

test('rankIds prefers RANK, then SLURM_PROCID, then LOCAL_RANK', () => {
	expect(
		rankIds(
			new Map([
				['RANK', '5'],
				['SLURM_PROCID', '1'],
				['LOCAL_RANK', '2'],
			]),
		),
	).toEqual({rank: 5, localRank: 2, worldSize: null});
	expect(
		rankIds(
			new Map([
				['SLURM_PROCID', '3'],
				['SLURM_LOCALID', '1'],
				['SLURM_NTASKS', '8'],
			]),
		),
	).toEqual({rank: 3, localRank: 1, worldSize: 8});
	expect(rankIds(new Map([['LOCAL_RANK', 'x']]))).toEqual({rank: null, localRank: null, worldSize: null});
});

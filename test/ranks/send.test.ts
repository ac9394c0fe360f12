import {spawnSync} from 'node:child_process';
import {randomUUID} from 'node:crypto';
import {hostname} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, test} from 'vitest';
import type {Job, RankSet} from '../../src/core/types.js';
import {RankSampler} from '../../src/ranks/discover.js';
import {sendSignal} from '../../src/ranks/send.js';
import type {SignalName} from '../../src/ranks/signals.js';
import {procReader, type ProcReader} from '../../src/system/procfs.js';
import {requireBuild, ROOT} from '../helpers/dist.js';
import {startPython, type PythonChild} from '../helpers/python-child.js';
import {until} from '../helpers/until.js';
import {echoOn, ping as pingWith} from '../helpers/python-signals.js';

const children: PythonChild[] = [];
afterEach(() => {
	for (const c of children.splice(0)) c.kill();
});

/** Starts python ranks 0..n-1 (with the given setups) and discovers them by their unique tag. */
async function job(...setups: string[]): Promise<{ranks: PythonChild[]; set: RankSet}> {
	const tag = `tt-send-${randomUUID()}`;
	const ranks: PythonChild[] = [];
	for (const [i, setup] of setups.entries()) {
		const child = await startPython(setup, {RANK: String(i), WORLD_SIZE: String(setups.length)}, tag);
		children.push(child);
		ranks.push(child);
	}
	const set = await new RankSampler({
		proc: procReader(),
		selector: {kind: 'match', pattern: new RegExp(tag)},
		host: hostname(),
	}).sample();
	expect(set.ranks).toHaveLength(setups.length);
	return {ranks, set};
}

/**
 * The test's ranks as one job. Their parent is the test runner, which is no launcher, so discovery makes each a job
 * of its own; sendSignal's contract is "the ranks of the job it is given", which these are.
 */
function asJob(set: RankSet): Job {
	return {...set.jobs[0]!, ranks: set.ranks};
}

const USR1_HANDLER = echoOn('SIGUSR1', 'USR1');
/** Every rank also handles SIGUSR2, which the tests send themselves as a ping. */
const handles = (...setups: string[]) => [...setups, echoOn('SIGUSR2', 'USR2')].join('\n');

/**
 * SIGUSR2 to the rank, then its "got USR2" (or its exit): whatever SIGUSR1 was sent before has had its effect by then
 * (SIGUSR1 = 10 is handled before SIGUSR2 = 12, and with no handler it kills the rank first). The rank's lines.
 */
const ping = (rank: PythonChild) => pingWith(rank, 'SIGUSR2', 'USR2');

function spyKill(): {calls: [number, SignalName][]; kill: (pid: number, signal: SignalName) => void} {
	const calls: [number, SignalName][] = [];
	return {
		calls,
		kill: (pid, signal) => {
			calls.push([pid, signal]);
			process.kill(pid, signal);
		},
	};
}

describe('sendSignal on real processes', () => {
	test('the save signal reaches a rank that handles it, and the rank keeps running', async () => {
		const {ranks, set} = await job(handles(USR1_HANDLER), handles(USR1_HANDLER));
		const {results} = await sendSignal({job: asJob(set), signal: 'SIGUSR1', force: false, proc: procReader()});
		expect(results).toEqual([
			{rank: 0, pid: ranks[0]!.pid, outcome: 'sent', reason: null},
			{rank: 1, pid: ranks[1]!.pid, outcome: 'sent', reason: null},
		]);
		for (const r of ranks) {
			// Handled once, and the rank still answers the ping after it.
			expect(await ping(r)).toEqual(['got USR1', 'got USR2']);
			expect(r.child.exitCode).toBeNull();
		}
	});

	test('a signal that would kill a rank without a handler is refused for that rank only, with the reason', async () => {
		const {ranks, set} = await job(handles(USR1_HANDLER), handles());
		const spy = spyKill();
		const {results} = await sendSignal({
			job: asJob(set),
			signal: 'SIGUSR1',
			force: false,
			proc: procReader(),
			kill: spy.kill,
		});
		expect(results[0]?.outcome).toBe('sent');
		expect(results[1]).toEqual({
			rank: 1,
			pid: ranks[1]!.pid,
			outcome: 'refused',
			reason: 'rank 1 has no handler for SIGUSR1: the signal would terminate it (--force sends it anyway)',
		});
		expect(spy.calls).toEqual([[ranks[0]!.pid, 'SIGUSR1']]);
		// Alive after the send: a SIGUSR1 would have killed it before the ping.
		expect(await ping(ranks[1]!)).toEqual(['got USR2']);
		expect(ranks[1]!.child.exitCode).toBeNull();
		expect(ranks[1]!.child.signalCode).toBeNull();
	});

	test('--force sends it anyway, and the rank dies of it', async () => {
		const {ranks, set} = await job('');
		const {results} = await sendSignal({job: asJob(set), signal: 'SIGUSR2', force: true, proc: procReader()});
		expect(results[0]).toMatchObject({
			outcome: 'sent',
			reason: 'forced: rank 0 had no handler, the signal terminates it',
		});
		expect(await ranks[0]!.exited).toEqual({code: null, signal: 'SIGUSR2'});
	});

	test('only the ranks asked for; unknown rank numbers are reported', async () => {
		const {ranks, set} = await job(handles(USR1_HANDLER), handles(USR1_HANDLER), handles(USR1_HANDLER));
		const {results, unknown} = await sendSignal({
			job: asJob(set),
			ranks: [2, 7],
			signal: 'SIGUSR1',
			force: false,
			proc: procReader(),
		});
		expect(results.map(r => [r.rank, r.outcome])).toEqual([[2, 'sent']]);
		expect(unknown).toEqual([7]);
		expect(await ping(ranks[0]!)).toEqual(['got USR2']);
		expect(await ping(ranks[1]!)).toEqual(['got USR2']);
		expect(await ping(ranks[2]!)).toEqual(['got USR1', 'got USR2']);
	});

	test('an ignored signal is not sent: refused, since it would do nothing (so the command exits 3)', async () => {
		const {set} = await job('signal.signal(signal.SIGUSR1, signal.SIG_IGN)');
		const spy = spyKill();
		const {results} = await sendSignal({
			job: asJob(set),
			signal: 'SIGUSR1',
			force: true,
			proc: procReader(),
			kill: spy.kill,
		});
		expect(results[0]).toMatchObject({
			outcome: 'refused',
			reason: 'rank 0 ignores SIGUSR1: it would have no effect; nothing sent',
		});
		expect(spy.calls).toEqual([]);
	});

	test('a stopped rank is refused a handled signal (it would wait for SIGCONT); --force queues it, said so', async () => {
		const {ranks, set} = await job(handles(USR1_HANDLER));
		const rank = ranks[0]!;
		process.kill(rank.pid, 'SIGSTOP');
		const proc = procReader();
		await until(
			() => proc.stat(rank.pid)?.state,
			state => state === 'T',
			'the rank stopped',
		);
		const spy = spyKill();
		const refused = sendSignal({job: asJob(set), signal: 'SIGUSR1', force: false, proc, kill: spy.kill}).results;
		expect(refused[0]).toMatchObject({
			outcome: 'refused',
			reason:
				'rank 0 is stopped (state T): SIGUSR1 would stay pending and act only once it is continued with SIGCONT (--force queues it anyway)',
		});
		expect(spy.calls).toEqual([]);
		const forced = sendSignal({job: asJob(set), signal: 'SIGUSR1', force: true, proc}).results;
		expect(forced[0]).toMatchObject({
			outcome: 'sent',
			reason: 'forced: rank 0 is stopped: SIGUSR1 is pending until it gets SIGCONT',
		});
		process.kill(rank.pid, 'SIGCONT');
		expect(await ping(rank)).toEqual(['got USR1', 'got USR2']);
	});

	test('PID reuse: a target whose start time changed gets nothing (outcome gone)', async () => {
		const {ranks, set} = await job(handles(USR1_HANDLER));
		const real = procReader();
		// /proc now says this pid started at another time: the rank exited and the pid was reused.
		const reused: ProcReader = {
			...real,
			stat: pid => {
				const stat = real.stat(pid);
				return stat && {...stat, startTime: stat.startTime + 1};
			},
		};
		const spy = spyKill();
		const {results} = await sendSignal({
			job: asJob(set),
			signal: 'SIGUSR1',
			force: false,
			proc: reused,
			kill: spy.kill,
		});
		expect(results[0]).toEqual({
			rank: 0,
			pid: ranks[0]!.pid,
			outcome: 'gone',
			reason: `pid ${ranks[0]!.pid} is no longer rank 0: that process exited and the pid was reused`,
		});
		expect(spy.calls).toEqual([]);
		expect(await ping(ranks[0]!)).toEqual(['got USR2']);
	});

	test('a rank that exited: gone, whether /proc already says so or kill(2) does (ESRCH)', async () => {
		const {ranks, set} = await job(USR1_HANDLER);
		const real = procReader();
		// Read the rank's /proc entries while it lives, then let it exit: a reader that still returns
		// them makes the identity check pass, so kill(2) itself meets the dead pid.
		const [stat, status] = [real.stat(ranks[0]!.pid), real.status(ranks[0]!.pid)];
		ranks[0]!.kill('SIGKILL');
		await ranks[0]!.exited;
		const stale: ProcReader = {...real, stat: () => stat, status: () => status};
		const esrch = await sendSignal({job: asJob(set), signal: 'SIGUSR1', force: false, proc: stale});
		expect(esrch.results[0]).toMatchObject({
			outcome: 'gone',
			reason: `rank 0 (pid ${ranks[0]!.pid}) exited before the signal arrived`,
		});
		const gone = await sendSignal({job: asJob(set), signal: 'SIGUSR1', force: false, proc: real});
		expect(gone.results[0]).toMatchObject({outcome: 'gone', reason: `rank 0 (pid ${ranks[0]!.pid}) has exited`});
	});

	test("never PID <= 1, never traintop itself, never another user's process", async () => {
		const {set} = await job(USR1_HANDLER);
		const rank = set.ranks[0]!;
		const spy = spyKill();
		const forged: RankSet = {
			...set,
			ranks: [
				{...rank, pid: 1},
				{...rank, rank: 1, pid: process.pid},
			],
		};
		const {results} = await sendSignal({
			job: asJob(forged),
			signal: 'SIGUSR1',
			force: true,
			proc: procReader(),
			kill: spy.kill,
		});
		expect(results.map(r => [r.outcome, r.reason])).toEqual([
			['refused', 'PID 1 is never a target'],
			['refused', 'traintop never signals itself'],
		]);
		const real = procReader();
		const otherUser: ProcReader = {
			...real,
			status: pid => {
				const status = real.status(pid);
				return status && {...status, uid: {real: 4242, effective: 4242}};
			},
		};
		const other = await sendSignal({job: asJob(set), signal: 'SIGUSR1', force: true, proc: otherUser, kill: spy.kill});
		expect(other.results[0]).toMatchObject({outcome: 'refused', reason: `pid ${rank.pid} belongs to another user`});
		expect(spy.calls).toEqual([]);
	});

	test.skipIf(process.getuid?.() !== 0)(
		'EPERM from the kernel is reported as denied (sender run as nobody)',
		async () => {
			requireBuild();
			const {ranks, set} = await job(handles(USR1_HANDLER));
			const target = set.ranks[0]!;
			const run = spawnSync(
				process.execPath,
				[path.join(ROOT, 'test/helpers/send-as-other-user.mjs'), String(target.pid), String(target.startTime)],
				{
					uid: 65534,
					gid: 65534,
					encoding: 'utf8',
				},
			);
			expect(run.stderr).toBe('');
			expect(JSON.parse(run.stdout)).toEqual([
				{rank: 0, pid: target.pid, outcome: 'denied', reason: `not permitted to signal pid ${target.pid} (EPERM)`},
			]);
			expect(await ping(ranks[0]!)).toEqual(['got USR2']);
		},
	);
});

import {randomUUID} from 'node:crypto';
import {mkdtempSync, readFileSync, readlinkSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, test} from 'vitest';
import {until} from '../helpers/until.js';
import {CommandLines} from '../../src/agent/agent-commands.js';
import type {SignalCommand} from '../../src/agent/protocol.js';
import {CheckpointWatcher} from '../../src/checkpoints/watch.js';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import type {RankSet} from '../../src/core/types.js';
import {RankSampler} from '../../src/ranks/discover.js';
import {sessionActions} from '../../src/session/actions.js';
import {procReader} from '../../src/system/procfs.js';
import {startPython, type PythonChild} from '../helpers/python-child.js';
import {echoOn, ping} from '../helpers/python-signals.js';

// An agent's answers to the lines on its stdin, on real processes: two python ranks found by a real rank scan,
// signals through the session's real sender (every guard of ranks/send.ts). Each rank handles SIGUSR2, which the
// tests send themselves as a ping: a SIGUSR1 sent before it has shown ("got USR1") by the time the ping's line does.

const HOST = 'node-7';
const children: PythonChild[] = [];
afterEach(() => {
	for (const c of children.splice(0)) c.kill();
});

/** Rank 0 handles SIGUSR1, rank 1 does not; both as one job, as a real scan of the pair finds them. */
async function twoRanks(): Promise<{ranks: PythonChild[]; set: RankSet}> {
	const tag = `tt-agent-${randomUUID()}`;
	const setups = [echoOn('SIGUSR1', 'USR1'), ''];
	const ranks: PythonChild[] = [];
	for (const [i, setup] of setups.entries()) {
		const child = await startPython(`${setup}\n${echoOn('SIGUSR2', 'USR2')}`, {RANK: String(i), WORLD_SIZE: '2'}, tag);
		children.push(child);
		ranks.push(child);
	}
	const found = await new RankSampler({
		proc: procReader(),
		selector: {kind: 'match', pattern: new RegExp(tag)},
		host: HOST,
	}).sample();
	expect(found.ranks).toHaveLength(2);
	// Their parent is the test runner, no launcher: discovery makes each a job of its own. One job holds both here.
	const job = {...found.jobs[0]!, id: 'job-1', ranks: found.ranks};
	return {ranks, set: {...found, jobs: [job]}};
}

function lines(set: RankSet | null, readonly = false, checkpoints: CheckpointWatcher | null = null): CommandLines {
	const actions = sessionActions({settings: DEFAULT_SETTINGS, proc: procReader(), checkpoints, logPath: null});
	return new CommandLines({
		host: HOST,
		readonly,
		latest: () => (set === null ? null : {ranks: set}),
		send: (signal, job, pids, expect) => actions.send(signal, job, pids, expect),
		detail: rank => actions.rankDetail(rank),
	});
}

function command(fields: Partial<SignalCommand>): string {
	return JSON.stringify({kind: 'signal', id: 'c1', host: HOST, job: 'job-1', signal: 'SIGUSR1', ranks: [], ...fields});
}

const identity = (set: RankSet, rank: number) => {
	const found = set.ranks.find(r => r.rank === rank)!;
	return {pid: found.pid, start_time: found.startTime};
};

describe('signal commands on real ranks', () => {
	test('the named rank gets the signal; a rank named with a reused identity or outside the job gets nothing', async () => {
		const {ranks, set} = await twoRanks();
		const rank0 = identity(set, 0);
		const rank1 = identity(set, 1);
		const reply = await lines(set).answer(
			command({
				ranks: [rank0, rank0, {pid: rank1.pid, start_time: rank1.start_time + 1}, {pid: 999_999, start_time: 5}],
			}),
		);
		expect(reply).toMatchObject({kind: 'reply', host: HOST, id: 'c1', refused: null});
		if (reply?.kind !== 'reply') throw new Error('no reply');
		expect(reply.results).toHaveLength(3);
		expect(reply.results[0]).toEqual({rank: 0, pid: rank0.pid, outcome: 'sent', reason: null});
		expect(reply.results[1]).toMatchObject({rank: 1, pid: rank1.pid, outcome: 'gone'});
		expect(reply.results[1]?.reason).toMatch(/no longer rank 1 as named .*pid was reused/);
		expect(reply.results[2]).toMatchObject({rank: null, pid: 999_999, outcome: 'gone'});
		expect(reply.results[2]?.reason).toBe('pid 999999 is not a rank of job job-1 on node-7 (at its last rank scan)');
		// Rank 0 handled it once; rank 1, which has no handler and would have died of it, is alive and got nothing.
		expect(await ping(ranks[0]!, 'SIGUSR2', 'USR2')).toEqual(['got USR1', 'got USR2']);
		expect(await ping(ranks[1]!, 'SIGUSR2', 'USR2')).toEqual(['got USR2']);
	});

	test("what the save asks for reaches the node's run-dir watcher: the command's word, else the signal's", async () => {
		const {ranks, set} = await twoRanks();
		const runDir = mkdtempSync(path.join(tmpdir(), 'traintop-agent-note-'));
		const watcher = new CheckpointWatcher({runDir, keep: null});
		try {
			const reader = lines(set, false, watcher);
			const sent = await reader.answer(command({ranks: [identity(set, 0)], expect: 'emergency'}));
			expect(sent).toMatchObject({kind: 'reply', refused: null});
			// Handled before the second is sent: two SIGUSR1 pending at once are one (signals are not queued), and on a
			// loaded machine the rank had not yet run its handler when the second came.
			await until(
				() => ranks[0]!.lines,
				seen => seen.includes('got USR1'),
				'the first SIGUSR1 handled',
			);
			await reader.answer(command({id: 'c2', ranks: [identity(set, 0)]}));
			expect(watcher.signalsSent.map(s => [s.signal, s.expect, s.job])).toEqual([
				['SIGUSR1', 'emergency', 'job-1'],
				['SIGUSR1', 'manual', 'job-1'],
			]);
			expect(await ping(ranks[0]!, 'SIGUSR2', 'USR2')).toEqual(['got USR1', 'got USR1', 'got USR2']);
		} finally {
			await watcher.stop();
			rmSync(runDir, {recursive: true, force: true});
		}
	});

	test("the node's guards hold: a rank without a handler is refused, never forced", async () => {
		const {ranks, set} = await twoRanks();
		const reply = await lines(set).answer(command({ranks: [identity(set, 1)]}));
		if (reply?.kind !== 'reply') throw new Error('no reply');
		expect(reply.results).toEqual([
			{
				rank: 1,
				pid: ranks[1]!.pid,
				outcome: 'refused',
				reason: 'rank 1 has no handler for SIGUSR1: the signal would terminate it (--force sends it anyway)',
			},
		]);
		expect(await ping(ranks[1]!, 'SIGUSR2', 'USR2')).toEqual(['got USR2']);
	});

	test('refused as a whole: read-only, not a signal, no ranks named, an unknown job, no scan yet', async () => {
		const {ranks, set} = await twoRanks();
		const named = [identity(set, 0)];
		const refusal = async (reader: CommandLines, fields: Partial<SignalCommand>) => {
			const reply = await reader.answer(command({ranks: named, ...fields}));
			if (reply?.kind !== 'reply') throw new Error(`no reply: ${JSON.stringify(reply)}`);
			expect(reply.results).toEqual([]);
			return reply.refused;
		};
		expect(await refusal(lines(set, true), {})).toBe('the agent on node-7 runs with --readonly: no signal is sent');
		expect(await refusal(lines(set), {signal: 'SIGNOPE'})).toBe(
			'SIGNOPE is not a signal on node-7 (signal names as in kill -l, e.g. SIGUSR1)',
		);
		expect(await refusal(lines(set), {ranks: []})).toBe(
			'the command names no ranks: an agent never widens a command to every rank',
		);
		expect(await refusal(lines(set), {job: 'job-2'})).toBe('no job job-2 on node-7 (jobs here: job-1)');
		expect(await refusal(lines(null), {})).toBe('no rank scan yet on node-7: nothing is known to signal');
		// None of them sent anything.
		expect(await ping(ranks[0]!, 'SIGUSR2', 'USR2')).toEqual(['got USR2']);
	});
});

describe('detail commands on real ranks', () => {
	const detail = (fields: object) => JSON.stringify({kind: 'detail', id: 'd1', host: HOST, ...fields});

	test("a rank of the scan, by its identity: its node's /proc, exact argv, cwd and launch variables, --readonly too", async () => {
		const {ranks, set} = await twoRanks();
		const rank1 = identity(set, 1);
		const answer = await lines(set, true).answer(detail(rank1));
		expect(answer).toMatchObject({kind: 'detail', host: HOST, id: 'd1', refused: null});
		if (answer?.kind !== 'detail' || answer.detail === null) throw new Error(`no detail: ${JSON.stringify(answer)}`);
		// What the kernel says of that process, argument by argument (the script holds newlines and blanks).
		const argv = readFileSync(`/proc/${ranks[1]!.pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
		// python3 -c SCRIPT TAG: the script whole, newlines and all, not the scan's words split at blanks.
		expect(argv).toHaveLength(4);
		expect(argv[2]).toMatch(/\nwhile True: signal.pause\(\)\n$/);
		expect(answer.detail.argv).toEqual(argv);
		expect(answer.detail.argvExact).toBe(true);
		expect(answer.detail.cwd).toBe(readlinkSync(`/proc/${ranks[1]!.pid}/cwd`));
		expect(answer.detail.variables).toEqual([
			{name: 'RANK', value: '1'},
			{name: 'WORLD_SIZE', value: '2'},
		]);
		expect(answer.detail).toMatchObject({rank: 1, pid: rank1.pid, host: HOST, workers: []});
	});

	test('never an arbitrary pid: not a rank, a reused identity, an exited rank, no scan; another host: no answer', async () => {
		const {ranks, set} = await twoRanks();
		const refusal = async (reader: CommandLines, fields: object) => {
			const answer = await reader.answer(detail(fields));
			if (answer?.kind !== 'detail') throw new Error(`no detail answer: ${JSON.stringify(answer)}`);
			expect(answer.detail).toBeNull();
			return answer.refused;
		};
		// This test's own process (the agent's viewer, say): a real process, not a rank.
		const self = {pid: process.pid, start_time: 1};
		expect(await refusal(lines(set), self)).toBe(
			`pid ${process.pid} is not a rank on node-7 at its last rank scan: an agent reads /proc for its ranks only`,
		);
		const rank0 = identity(set, 0);
		expect(await refusal(lines(set), {...rank0, start_time: rank0.start_time + 1})).toBe(
			`pid ${rank0.pid} on node-7 is no longer the rank named (start time ${rank0.start_time + 1}, now ${rank0.start_time}): that process exited and the pid was reused`,
		);
		expect(await refusal(lines(null), rank0)).toBe('no rank scan yet on node-7: nothing is known to show');
		ranks[0]!.kill();
		await ranks[0]!.exited;
		expect(await refusal(lines(set), rank0)).toBe(`pid ${rank0.pid} on node-7 has exited since the last rank scan`);
		expect(await lines(set).answer(detail({...identity(set, 1), host: 'node-8'}))).toBeNull();
	});
});

describe('lines that are not commands for this node', () => {
	test('another host: no answer; garbage: an error naming the line and the count, and the next line is read', async () => {
		const reader = lines(null);
		expect(await reader.answer(command({host: 'node-8'}))).toBeNull();
		// Not a valid command, but addressed elsewhere: not this agent's to complain about.
		expect(await reader.answer(JSON.stringify({kind: 'reboot', host: 'node-8'}))).toBeNull();
		expect(await reader.answer('')).toBeNull();
		expect(await reader.answer('{"kind": "signal", "host": "node-7"')).toEqual({
			kind: 'error',
			host: HOST,
			message: 'stdin line 4 skipped (1 so far): not JSON: {"kind": "signal", "host": "node-7"',
		});
		const unknown = await reader.answer(JSON.stringify({kind: 'reboot', host: HOST}));
		expect(unknown?.kind).toBe('error');
		expect(unknown && 'message' in unknown ? unknown.message : '').toMatch(
			/^stdin line 5 skipped \(2 so far\): not an agent command at kind: /,
		);
		expect(reader.skipped).toBe(2);
		expect(await reader.answer(command({ranks: [{pid: 4242, start_time: 1}]}))).toMatchObject({
			kind: 'reply',
			refused: expect.stringMatching(/no rank scan yet/),
		});
	});
});

import {describe, expect, it} from 'vitest';
import {ncclRasChanges} from '../../src/system/nccl-ras-diff.js';
import {parseNcclRasAnswer} from '../../src/system/nccl-ras-parse.js';
import {rasFixture} from '../helpers/fake-ras-server.js';

// The parser on NCCL's own answers: status-2.28.9.txt and verbose-status-2.28.9.txt are what NCCL 2.28.9's RAS
// service answered on an H200 (a 1-rank job, all_reduce in a loop); status-error-2.28.9.txt is built from the format
// strings of NCCL 2.28.9's src/ras/client_support.cc for a 2-node, 8-rank job with one process gone and one rank
// aborted (test/fixtures/nccl-ras/README.md).

describe('parseNcclRasAnswer', () => {
	it('reads the recorded answer of NCCL 2.28.9: 1 group, 1 comm, 1 rank, RUNNING, OK, no errors or warnings', () => {
		for (const name of ['status-2.28.9.txt', 'verbose-status-2.28.9.txt']) {
			const parsed = parseNcclRasAnswer(rasFixture(name));
			expect(parsed.problem, name).toBeNull();
			expect(parsed.answer).toEqual({
				version: '2.28.9',
				groups: [
					{
						group: 0,
						comms: 1,
						nodesPerComm: 1,
						ranksPerNode: 1,
						ranksPerNodeMax: 1,
						ranksPerComm: 1,
						ranksInGroup: 1,
						status: 'RUNNING',
						errors: 'OK',
					},
				],
				errors: [],
				warnings: [],
			});
		}
	});

	it('reads an answer with a communicator in error: its status, errors, a ranks-per-node range, the sections', () => {
		const {answer, problem} = parseNcclRasAnswer(rasFixture('status-error-2.28.9.txt'));
		expect(problem).toBeNull();
		expect(answer?.groups).toEqual([
			{
				group: 0,
				comms: 1,
				nodesPerComm: 2,
				ranksPerNode: 3,
				ranksPerNodeMax: 4,
				ranksPerComm: 8,
				ranksInGroup: 7,
				status: 'ABORT',
				errors: 'INCOMPLETE,ERROR,MISMATCH',
			},
		]);
		expect(answer?.errors).toEqual([
			'INCOMPLETE',
			'  Missing communicator data from 1 job process',
			'  Process 4242 on node 10.0.0.2 managing GPU 1',
			'#0-0 (9f3c2a1b5d7e6f80) INCOMPLETE',
			'  Missing communicator data from 1 rank',
			'  Rank 5 -- GPU 1 managed by process 4242 on node 10.0.0.2',
			'#0-0 (9f3c2a1b5d7e6f80) ERROR',
			'  Asynchronous error on 1 rank',
			'  Rank 4 reported System error -- GPU 0 managed by process 4241 on node 10.0.0.2',
		]);
		expect(answer?.warnings[0]).toBe('TIMEOUT');
		expect(answer?.warnings).toContain('  Rank 4 has status ABORT -- GPU 0 managed by process 4241 on node 10.0.0.2');
		expect(answer?.warnings).toHaveLength(9);
	});

	it('reads "No communicator data collected!" as no groups (the RAS service up before any communicator)', () => {
		// client_support.cc rasClientRunComms prints that line instead of the table when nComms is 0.
		const recorded = rasFixture('status-2.28.9.txt');
		const table = /Group {5}Comms[\s\S]*?\n\n/.exec(recorded)![0];
		const parsed = parseNcclRasAnswer(recorded.replace(table, 'No communicator data collected!\n\n'));
		expect(parsed.problem).toBeNull();
		expect(parsed.answer?.groups).toEqual([]);
	});

	it('gives a problem, never a throw, for what is not such an answer', () => {
		const recorded = rasFixture('status-2.28.9.txt');
		const cases: [string, RegExp][] = [
			['', /not a RAS status answer/],
			['HTTP/1.1 400 Bad Request\r\n\r\n', /not a RAS status answer.*HTTP/],
			['ERROR: Unknown command help\n', /refused the command: ERROR: Unknown command help/],
			[recorded.slice(0, recorded.indexOf('Errors')), /ends before its "Errors" section/],
			[recorded.slice(0, recorded.indexOf('Warnings')), /ends before its "Warnings" section/],
			[recorded.replace('RUNNING      OK', 'RUNNING      ??'), /line 16 is not a row of the communicator table/],
			[recorded.replace(/Group {5}Comms[\s\S]*?\n\n/, '\n'), /no communicator table/],
			['\u0000\u00ff\ud800garbage\nCommunicators...\n', /ends before its "Errors" section/],
		];
		for (const [text, problem] of cases) {
			const parsed = parseNcclRasAnswer(text);
			expect(parsed.answer, JSON.stringify(text.slice(0, 40))).toBeNull();
			expect(parsed.problem).toMatch(problem);
		}
	});
});

describe('ncclRasChanges', () => {
	const ok = parseNcclRasAnswer(rasFixture('status-2.28.9.txt')).answer!;
	const bad = parseNcclRasAnswer(rasFixture('status-error-2.28.9.txt')).answer!;

	it('says nothing between two answers alike', () => {
		expect(ncclRasChanges(ok, ok)).toEqual([]);
	});

	it('sums up past 12 lines: a job of many communicators changing at once', () => {
		// 19 groups appear (group 0 stays): 11 named, 8 counted.
		const many = {...ok, groups: Array.from({length: 20}, (_, group) => ({...ok.groups[0]!, group}))};
		const changes = ncclRasChanges(ok, many);
		expect(changes).toHaveLength(12);
		expect(changes[11]).toBe('… and 8 more changes');
	});

	it("names a group's status, errors and size changes and the new error and warning lines", () => {
		const changes = ncclRasChanges(ok, bad);
		expect(changes.slice(0, 3)).toEqual([
			'group 0: RUNNING → ABORT',
			'group 0: errors OK → INCOMPLETE,ERROR,MISMATCH',
			'group 0: 1 → 7 ranks',
		]);
		// NCCL's blocks, each by its heading and its first line (the rest are in the state's errors and warnings).
		expect(changes.slice(3)).toEqual([
			'new error: INCOMPLETE — Missing communicator data from 1 job process',
			'new error: #0-0 (9f3c2a1b5d7e6f80) INCOMPLETE — Missing communicator data from 1 rank',
			'new error: #0-0 (9f3c2a1b5d7e6f80) ERROR — Asynchronous error on 1 rank',
			'new warning: TIMEOUT — Encountered 1 communication timeout while gathering communicator data',
			'new warning: #0-0 (9f3c2a1b5d7e6f80) MISMATCH — Communicator ranks have different status',
		]);
		expect(ncclRasChanges(bad, ok)).toEqual([
			'group 0: ABORT → RUNNING',
			'group 0: errors INCOMPLETE,ERROR,MISMATCH → OK',
			'group 0: 7 → 1 ranks',
		]);
	});

	it('names a group that appeared and one that went', () => {
		const two = {...ok, groups: [...ok.groups, {...ok.groups[0]!, group: 1, comms: 2, ranksInGroup: 2}]};
		expect(ncclRasChanges(ok, two)).toEqual(['group 1 appeared: 2 comms, 2 ranks, RUNNING, errors OK']);
		expect(ncclRasChanges(two, ok)).toEqual(['group 1 gone (was 2 comms, 2 ranks, RUNNING, errors OK)']);
	});
});

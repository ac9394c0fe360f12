import {describe, expect, it} from 'vitest';
import type {NcclRasState} from '../../src/core/progress-types.js';
import {ncclRasJson, ncclRasLines} from '../../src/format/nccl-ras.js';
import {ncclRasChanges} from '../../src/system/nccl-ras-diff.js';
import {parseNcclRasAnswer} from '../../src/system/nccl-ras-parse.js';
import {rasFixture} from '../helpers/fake-ras-server.js';

// The words and JSON of NCCL's RAS view, from the parsed answers of test/fixtures/nccl-ras/ (NCCL 2.28.9: the
// recorded one, and one built from src/ras/client_support.cc's format strings with a communicator in error).

const AT = Date.parse('2026-11-28T19:40:00Z');
const ok = parseNcclRasAnswer(rasFixture('status-2.28.9.txt')).answer!;
const bad = parseNcclRasAnswer(rasFixture('status-error-2.28.9.txt')).answer!;
const state = (answer: typeof ok, changes: string[] = []): NcclRasState => ({
	status: 'ok',
	readAt: AT,
	...answer,
	changes,
});

describe('ncclRasLines', () => {
	it("shows the recorded answer in one line: NCCL's version, the group, its status and errors", () => {
		expect(ncclRasLines(state(ok), AT + 5000)).toEqual([
			'NCCL RAS 2.28.9: 1 communicator group — group 0: 1 comm, 1 rank, RUNNING, errors OK',
		]);
	});

	it('puts the trouble first, then NCCL’s errors and warnings, then what changed', () => {
		const lines = ncclRasLines(state(bad, ncclRasChanges(ok, bad)), AT);
		expect(lines[0]).toBe(
			'NCCL RAS 2.28.9: 1 communicator group — group 0: ABORT, errors INCOMPLETE,ERROR,MISMATCH — 1 comm, 7 ranks',
		);
		expect(lines[1]).toBe('NCCL errors:');
		expect(lines[2]).toBe('  INCOMPLETE');
		expect(lines).toContain('  … 1 more line');
		expect(lines).toContain('NCCL warnings:');
		expect(lines).toContain('Changed since the previous answer:');
		expect(lines).toContain('  group 0: RUNNING → ABORT');
	});

	it('lists several groups, the troubled first, and says how old a stale answer is', () => {
		const two = {...ok, groups: [ok.groups[0]!, {...bad.groups[0]!, group: 1}]};
		expect(ncclRasLines(state(two), AT + 120_000)).toEqual([
			'NCCL RAS 2.28.9: 2 communicator groups, 1 not RUNNING or with errors (read 2 min ago)',
			'  group 1: ABORT, errors INCOMPLETE,ERROR,MISMATCH — 1 comm, 7 ranks',
			'  group 0: 1 comm, 1 rank, RUNNING, errors OK',
		]);
		expect(ncclRasLines(state({...ok, groups: [], version: null}), AT)).toEqual(['NCCL RAS: no communicators']);
	});

	it('says why it is absent, and shows control characters from the wire inert', () => {
		expect(
			ncclRasLines(
				{status: 'absent', readAt: AT, reason: 'nothing listens at 127.0.0.1:28028 (connection refused)'},
				AT,
			),
		).toEqual(['NCCL RAS: not answering — nothing listens at 127.0.0.1:28028 (connection refused)']);
		const evil = state({...ok, errors: ['  Rank 1 on node \u001b]0;PWNED\u0007']});
		expect(ncclRasLines(evil, AT)).toContain('    Rank 1 on node \\e]0;PWNED\\x07');
	});
});

describe('ncclRasJson', () => {
	it('writes snake_case figures, NCCL’s words, the time read as ISO', () => {
		expect(ncclRasJson(state(bad, ['group 0: RUNNING → ABORT']))).toEqual({
			status: 'ok',
			read_at: '2026-11-28T19:40:00.000Z',
			version: '2.28.9',
			groups: [
				{
					group: 0,
					comms: 1,
					nodes_per_comm: 2,
					ranks_per_node: 3,
					ranks_per_node_max: 4,
					ranks_per_comm: 8,
					ranks_in_group: 7,
					status: 'ABORT',
					errors: 'INCOMPLETE,ERROR,MISMATCH',
				},
			],
			errors: bad.errors,
			warnings: bad.warnings,
			changes: ['group 0: RUNNING → ABORT'],
		});
		expect(ncclRasJson(state(ok)).groups).toEqual([
			{
				group: 0,
				comms: 1,
				nodes_per_comm: 1,
				ranks_per_node: 1,
				ranks_per_comm: 1,
				ranks_in_group: 1,
				status: 'RUNNING',
				errors: 'OK',
			},
		]);
		expect(ncclRasJson({status: 'absent', readAt: AT, reason: 'x'})).toEqual({
			status: 'absent',
			read_at: '2026-11-28T19:40:00.000Z',
			reason: 'x',
		});
	});
});

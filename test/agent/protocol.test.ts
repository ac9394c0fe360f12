import {describe, expect, test} from 'vitest';
import {parseAgentCommand, parseAgentMessage} from '../../src/agent/protocol.js';
import {detailFromScan, type RankDetail} from '../../src/ranks/detail.js';
import {NOW, rank} from '../ui/fixtures.js';

// The detail command and its answer, as lines of the agent protocol: what parses, what is turned away and why, and
// that every line a PROTOCOL 1 reader took before still parses the same.

const line = (value: object): string => JSON.stringify(value);

/** A detail as an agent reads it from /proc: exact argv (a script with newlines), cwd, variables, worker RSS. */
const fullDetail: RankDetail = {
	...detailFromScan(rank(3), NOW),
	argv: ['/usr/bin/python3', '-c', 'import os\nprint(1)', 'tag with blanks'],
	argvExact: true,
	cwd: '/runs/exp1',
	variables: [
		{name: 'RANK', value: '3'},
		{name: 'WORLD_SIZE', value: '4'},
	],
	workers: [
		{pid: 20_030, rssBytes: 1_048_576, gone: false},
		{pid: 20_031, rssBytes: null, gone: true},
	],
};

describe('the detail command (stdin)', () => {
	test('a rank named by pid and start time parses as itself', () => {
		const command = {kind: 'detail', id: 'c3', host: 'gpu2', pid: 4250, start_time: 3_377_935};
		expect(parseAgentCommand(line(command))).toEqual({ok: true, value: command});
	});

	test.each([
		[{pid: 0}, 'at pid'],
		[{pid: 4250.5}, 'at pid'],
		[{start_time: -1}, 'at start_time'],
		[{start_time: undefined}, 'at start_time'],
		[{id: ''}, 'at id'],
		[{host: ''}, 'at host'],
	])('%j is not a command: the field is named', (fields, where) => {
		const command = {kind: 'detail', id: 'c3', host: 'gpu2', pid: 4250, start_time: 7, ...fields};
		const parsed = parseAgentCommand(line(command));
		expect(parsed.ok).toBe(false);
		if (!parsed.ok) expect(parsed.error).toMatch(new RegExp(`^not an agent command ${where}: `));
	});

	test('the signal command parses as before; an unknown kind is named as such', () => {
		const signal = {
			kind: 'signal',
			id: 'c7',
			host: 'gpu2',
			job: 'torchrun:4242',
			signal: 'SIGUSR1',
			ranks: [{pid: 4250, start_time: 3_377_935}],
		};
		expect(parseAgentCommand(line(signal))).toEqual({ok: true, value: signal});
		const unknown = parseAgentCommand(line({kind: 'reboot', id: 'c8', host: 'gpu2'}));
		expect(unknown.ok).toBe(false);
		if (!unknown.ok) expect(unknown.error).toMatch(/^not an agent command at kind: /);
	});
});

describe('the detail answer (stdout)', () => {
	test('a full detail comes through whole, exact argv and all', () => {
		const message = {kind: 'detail', host: 'gpu2', id: 'c3', detail: fullDetail, refused: null};
		expect(parseAgentMessage(line(message))).toEqual({ok: true, value: message});
	});

	test('no detail, with the reason', () => {
		const message = {kind: 'detail', host: 'gpu2', id: 'c3', detail: null, refused: 'pid 1 is not a rank on gpu2'};
		expect(parseAgentMessage(line(message))).toEqual({ok: true, value: message});
	});

	test.each([
		[{detail: {...fullDetail, argv: 'python3 train.py'}}, 'at detail.argv'],
		[{detail: {...fullDetail, workers: [{pid: 1, rssBytes: -5, gone: false}]}}, 'at detail.workers.0.rssBytes'],
		[{detail: {...fullDetail, signals: {SIGUSR1: {disposition: 'caught'}}}}, 'at detail.signals.SIGUSR1'],
		[{refused: undefined}, 'at refused'],
		[{id: 7}, 'at id'],
	])('%j is not a message: the field is named', (fields, where) => {
		const message = {kind: 'detail', host: 'gpu2', id: 'c3', detail: fullDetail, refused: null, ...fields};
		const parsed = parseAgentMessage(line(message));
		expect(parsed.ok).toBe(false);
		if (!parsed.ok) expect(parsed.error).toContain(`not an agent message ${where}`);
	});

	test("a PROTOCOL 1 reader's lines still parse: a reply, an error, a hello", () => {
		const reply = {
			kind: 'reply',
			host: 'gpu2',
			id: 'c7',
			results: [{rank: 0, pid: 4250, outcome: 'sent', reason: null}],
			refused: null,
		};
		const error = {kind: 'error', host: 'gpu2', message: 'stdin line 3 skipped (1 so far): not JSON: x'};
		const hello = {
			kind: 'hello',
			protocol: 1,
			host: 'gpu2',
			version: '0.1.0',
			pid: 21_121,
			clock: NOW,
			interval_ms: 1000,
			run_dir: null,
		};
		for (const message of [reply, error, hello])
			expect(parseAgentMessage(line(message))).toEqual({ok: true, value: message});
	});
});

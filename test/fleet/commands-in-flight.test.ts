import {describe, expect, test} from 'vitest';
import type {DetailMessage, ReplyMessage} from '../../src/agent/protocol.js';
import {CommandsInFlight} from '../../src/fleet/commands-in-flight.js';

// Commands waiting for their agent's answer: matched by id and by the kind of answer their command gets, bounded in
// time, and ended all at once when traintop closes.

const detailCommand = {kind: 'detail', pid: 4250, start_time: 7} as const;
const signalCommand = {kind: 'signal', job: 'j', signal: 'SIGUSR1', ranks: []} as const;

const detailAnswer = (id: string): DetailMessage => ({kind: 'detail', host: 'gpu2', id, detail: null, refused: 'x'});
const reply = (id: string): ReplyMessage => ({kind: 'reply', host: 'gpu2', id, results: [], refused: null});

describe('CommandsInFlight', () => {
	test('each command gets the answer that carries its id and is of its kind; a reply with a detail id is not it', async () => {
		const inFlight = new CommandsInFlight();
		const ids: string[] = [];
		const write = (id: string) => {
			ids.push(id);
			return true;
		};
		const detail = inFlight.ask(detailCommand, 10_000, write);
		const signal = inFlight.ask(signalCommand, 10_000, write);
		expect(ids).toEqual(['c1', 'c2']);
		inFlight.answered(reply('c1'));
		inFlight.answered(reply('c2'));
		inFlight.answered(detailAnswer('c1'));
		expect(await detail).toEqual({kind: 'answered', answer: detailAnswer('c1')});
		expect(await signal).toEqual({kind: 'answered', answer: reply('c2')});
	});

	test('no answer in time, a line that could not be written, traintop closing: unreachable, saying which', async () => {
		const inFlight = new CommandsInFlight();
		const startedAt = Date.now();
		const late = await inFlight.ask(detailCommand, 50, () => true);
		expect(late).toEqual({kind: 'unreachable', why: 'its agent did not answer in 0.05 s'});
		expect(Date.now() - startedAt).toBeGreaterThanOrEqual(45);
		// An answer after the bound finds nobody waiting.
		inFlight.answered(detailAnswer('c1'));

		expect(await inFlight.ask(detailCommand, 10_000, () => false)).toEqual({
			kind: 'unreachable',
			why: 'its connection is closing',
		});
		const waiting = inFlight.ask(signalCommand, 10_000, () => true);
		inFlight.abandon('traintop is closing');
		expect(await waiting).toEqual({kind: 'unreachable', why: 'traintop is closing'});
	});
});

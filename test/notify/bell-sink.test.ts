import {PassThrough} from 'node:stream';
import {describe, expect, it} from 'vitest';
import {bellSink} from '../../src/notify/bell-sink.js';
import {sampleNotice} from '../helpers/sample-notice.js';
import {until} from '../helpers/until.js';

// The bell: for a critical episode beginning (or a critical one-off), never for a warning or a resolve, at most once a
// second, into a stream that collects what a terminal would get.

function terminal(): {readonly stream: PassThrough; readonly bytes: () => string} {
	const stream = new PassThrough();
	let collected = '';
	stream.on('data', (chunk: Buffer) => {
		collected += chunk.toString('latin1');
	});
	return {stream, bytes: () => collected};
}

describe('bellSink', () => {
	it('rings for a critical raise or one-off, never for a warning or a resolve', async () => {
		for (const [notice, rings] of [
			[sampleNotice({state: 'raised', level: 'critical'}), '\x07'],
			[sampleNotice({state: 'once', level: 'critical'}), '\x07'],
			[sampleNotice({state: 'raised', level: 'warn'}), ''],
			[sampleNotice({state: 'resolved', level: 'ok'}), ''],
			[sampleNotice({state: 'resolved', level: 'critical'}), ''],
		] as const) {
			const {stream, bytes} = terminal();
			const bell = bellSink(stream);
			bell.send(notice);
			await bell.close();
			stream.end();
			await new Promise(resolve => stream.once('end', resolve));
			expect(bytes(), `${notice.state} ${notice.level}`).toBe(rings);
		}
	});

	it('rings at most once a second', async () => {
		const {stream, bytes} = terminal();
		const bell = bellSink(stream);
		bell.send(sampleNotice());
		await until(bytes, seen => seen.length === 1, 'the first bell');
		const first = performance.now();
		// A storm of critical notices: the next bell only a second after the first.
		await until(
			() => {
				bell.send(sampleNotice());
				return bytes();
			},
			seen => seen.length === 2,
			'the second bell',
			10_000,
			20,
		);
		expect(performance.now() - first).toBeGreaterThanOrEqual(990);
		expect(bytes()).toBe('\x07\x07');
		await bell.close();
	});

	it('does not write to an ended terminal, nor after close', async () => {
		const {stream, bytes} = terminal();
		const bell = bellSink(stream);
		await bell.close();
		bell.send(sampleNotice());
		const ended = new PassThrough();
		ended.end();
		bellSink(ended).send(sampleNotice());
		expect(bytes()).toBe('');
	});
});

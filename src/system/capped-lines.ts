// A child's output, line by line, with a limit on one line's length. readline has none: an nvidia-smi that printed
// without a newline grew one string until V8 refused it (RangeError: Invalid string length after 645 MB), which
// crashed traintop. Here a line longer than the limit stops the reading and is reported once; what follows is dropped.

import type {Readable} from 'node:stream';

const NEWLINE = 0x0a;

/**
 * Feeds `stream` to `onLine` one line at a time (without its \n or \r\n; a last line without a newline too, at the
 * end). Once a line passes `maxLineBytes` without a newline, `onTooLong` runs once and nothing more is delivered:
 * the caller ends the child. Lines are decoded as UTF-8 only once whole, so a character split between reads is kept.
 */
export function readCappedLines(
	stream: Readable | null,
	maxLineBytes: number,
	onLine: (line: string) => void,
	onTooLong: () => void,
): void {
	if (stream === null) return;
	let pending: Buffer[] = [];
	let pendingBytes = 0;
	let overflowed = false;
	const deliver = (line: Buffer): void => {
		const text = line.toString('utf8');
		onLine(text.endsWith('\r') ? text.slice(0, -1) : text);
	};
	stream.on('data', (chunk: Buffer) => {
		if (overflowed) return;
		let start = 0;
		for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
			const piece = chunk.subarray(start, end);
			if (pendingBytes + piece.length > maxLineBytes) return overflow();
			deliver(pendingBytes === 0 ? piece : Buffer.concat([...pending, piece]));
			pending = [];
			pendingBytes = 0;
			start = end + 1;
		}
		const rest = chunk.subarray(start);
		if (pendingBytes + rest.length > maxLineBytes) return overflow();
		if (rest.length > 0) {
			pending.push(rest);
			pendingBytes += rest.length;
		}
	});
	stream.on('end', () => {
		if (!overflowed && pendingBytes > 0) deliver(Buffer.concat(pending));
		pending = [];
	});
	function overflow(): void {
		overflowed = true;
		pending = [];
		pendingBytes = 0;
		onTooLong();
	}
}

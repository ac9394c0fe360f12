import type {NoticeSink} from './notice.js';

// `--bell`: the terminal's bell when something critical begins, for the user in another pane or window. Never for a
// resolve or a warning, and at most once a second: a burst of CRIT notices (every rank of a job dying at once) is one
// bell, not a buzz.

const BELL = '\x07';
const MIN_GAP_MS = 1000;

export function bellSink(terminal: NodeJS.WritableStream): NoticeSink {
	let lastRung = Number.NEGATIVE_INFINITY;
	let closed = false;
	return {
		name: 'bell',
		send(notice) {
			// An ended terminal would answer a write with an 'error' event nobody listens for.
			if (closed || !terminal.writable || notice.level !== 'critical' || notice.state === 'resolved') return;
			const now = performance.now();
			if (now - lastRung < MIN_GAP_MS) return;
			lastRung = now;
			try {
				terminal.write(BELL);
			} catch {
				// A terminal that is gone cannot ring; the monitor goes on.
			}
		},
		async close() {
			closed = true;
		},
	};
}

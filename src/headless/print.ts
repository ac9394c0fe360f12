import type {Writable} from 'node:stream';
import type {StdoutReader} from './stdout-reader.js';

// Where a headless view's words go: notes and alerts on stderr, records on stdout while its reader is there.

export interface Print {
	/** --json: records (and the job's events, one object each) on stdout instead of status lines. */
	readonly json: boolean;
	/** A line on stderr, after `traintop: `. */
	note(text: string): void;
	/** A line on stderr as it is (an alert line starts with its own time and level). */
	err(line: string): void;
	/** A line on stdout, while its reader is there. */
	out(line: string): void;
	/** With --json, an object on stdout. */
	record(value: unknown): void;
}

export function printTo(stdout: Writable, stderr: Writable, reader: StdoutReader, json: boolean): Print {
	const out = (line: string) => {
		if (reader.open()) stdout.write(`${line}\n`);
	};
	return {
		json,
		note: text => stderr.write(`traintop: ${text}\n`),
		err: line => stderr.write(`${line}\n`),
		out,
		record: value => {
			if (json) out(JSON.stringify(value));
		},
	};
}

import {mkdirSync} from 'node:fs';
import {open} from 'node:fs/promises';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';

// A checkpoint written as a slow file system writes one: the file opened (its birth time), its bytes written in
// chunks with real pauses between them, closed after the last (its mtime). The scanner's write time is the span
// between the two; the writer measures the same span with its own clock, for the tests to compare.

/** Writes RUN/checkpoints/NAME over about `seconds`; returns the seconds from open to close on this clock. */
export async function writeSlowSave(runDir: string, name: string, seconds: number, chunks = 10): Promise<number> {
	const dir = path.join(runDir, 'checkpoints');
	mkdirSync(dir, {recursive: true});
	const chunk = Buffer.alloc(64 * 1024, 7);
	const started = performance.now();
	const file = await open(path.join(dir, name), 'w');
	try {
		for (let i = 0; i < chunks; i++) {
			await file.write(chunk);
			if (i < chunks - 1) await sleep((seconds * 1000) / (chunks - 1));
		}
	} finally {
		await file.close();
	}
	return (performance.now() - started) / 1000;
}

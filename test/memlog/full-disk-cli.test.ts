import {readFileSync, rmSync} from 'node:fs';
import path from 'node:path';
import {expect, test} from 'vitest';
import {startCli} from '../helpers/run-cli.js';
import {fillUntilFull, smallTmpfsForThisFile} from '../helpers/small-tmpfs.js';

// The disk under the memory log fills while a real `traintop --headless` writes it, stays full for several records,
// then is freed. Before, every record made while it was full was lost (64 KiB tmpfs, 12 s full: 23 records emitted,
// 12 logged); now they are kept in memory and written once space returns, the record that hit the full disk finished
// from where the kernel stopped taking it (a head cut just before its newline was once written a second time). A real
// 64 KiB tmpfs (mounting needs root).

const tmpfs = smallTmpfsForThisFile('64k', 'traintop-fulldisk-cli-');

/** The timestamps of the memory-log records among JSON lines (headless --json also prints a start record). */
function recordTimes(text: string): string[] {
	return text.split('\n').flatMap(line => {
		try {
			const value = JSON.parse(line) as {timestamp?: string; memory?: unknown};
			return value.memory !== undefined && value.timestamp ? [value.timestamp] : [];
		} catch {
			return [];
		}
	});
}

test('records made while the disk is full are written once it has space again', {timeout: 120_000}, async context => {
	const mount = tmpfs.dir;
	if (mount === null) return context.skip(tmpfs.why);
	const log = path.join(mount, 'traintop-memory.jsonl');
	const filler = path.join(mount, 'filler');
	const run = startCli([
		'--headless',
		'--json',
		'--log-file',
		log,
		'--nvidia-smi',
		'/nonexistent/nvidia-smi',
		'--interval',
		'0.1',
		'--log-interval',
		'0.2',
	]);
	try {
		await run.waitFor(({stdout}) => recordTimes(stdout).length >= 3, 60_000);
		fillUntilFull(filler, 1024);
		await run.waitFor(({stderr}) => stderr.includes('cannot append to'), 60_000);
		const atFull = recordTimes(run.stdout()).length;
		// Several records are made while the disk stays full.
		await run.waitFor(({stdout}) => recordTimes(stdout).length >= atFull + 10, 60_000);
		rmSync(filler);
		await run.waitFor(({stderr}) => stderr.includes(`memory log ${log} is writable again`), 60_000);
		const afterFree = recordTimes(run.stdout()).length;
		await run.waitFor(({stdout}) => recordTimes(stdout).length >= afterFree + 3, 60_000);
		run.child.kill('SIGTERM');
		expect(await run.exited).toBe(0);
	} finally {
		run.child.kill('SIGKILL');
	}
	const emitted = recordTimes(run.stdout());
	const lines = readFileSync(log, 'utf8').split('\n');
	const logged = recordTimes(lines.join('\n'));
	// Every record emitted is in the log, once, in order.
	expect(logged).toEqual(emitted);
	// At most one line is not a record: the torn head of the record that hit the full disk.
	const fragments = lines.filter(line => line !== '' && recordTimes(line).length === 0);
	expect(fragments.length).toBeLessThanOrEqual(1);
	for (const fragment of fragments) expect(fragment.startsWith('{"timestamp":')).toBe(true);
	expect(run.stderr()).toContain('records are kept (up to 1000) and written when it can be appended to again');
});

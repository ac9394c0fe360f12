import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, test} from 'vitest';
import {torchReads} from '../../src/ranks/launcher-code.js';
import {procReader} from '../../src/system/procfs.js';

// Which of the launcher's variables its installed torch reads, found through the real ProcReader over a /proc-shaped
// tree: the process's memory map names its torch package (torch/_C….so), and its source files are read under
// PID/root as the process sees them. The two torches stand for torch 1.13 (Debian's, installed here: run.py without
// --shutdown-timeout, launcher/api.py without the variable) and pytorch main 0580428 (both present); their files here
// hold only the words looked for, written for this test. The real agent's is in launcher-real.test.ts.

const PID = 4242;
let dir: string | null = null;
afterEach(async () => {
	if (dir) await rm(dir, {recursive: true, force: true});
	dir = null;
});

async function tree(withOptions: boolean): Promise<string> {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-proc-'));
	const torch = '/opt/venv/lib/python3.12/site-packages/torch';
	await mkdir(path.join(dir, String(PID), 'root', torch, 'distributed', 'launcher'), {recursive: true});
	await writeFile(
		path.join(dir, String(PID), 'maps'),
		[
			'7f0000000000-7f0000001000 r--p 00000000 08:01 11 /usr/lib/x86_64-linux-gnu/libc.so.6',
			`7f0000002000-7f0000003000 r-xp 00001000 08:01 12 ${torch}/_C.cpython-312-x86_64-linux-gnu.so`,
			'',
		].join('\n'),
	);
	const root = path.join(dir, String(PID), 'root', torch, 'distributed');
	await writeFile(
		path.join(root, 'run.py'),
		withOptions ? '"--signals-to-handle",\n"--shutdown-timeout",\n' : '"--nnodes",\n',
	);
	await writeFile(
		path.join(root, 'launcher', 'api.py'),
		withOptions ? 'os.environ.get("TORCH_ELASTIC_SHUTDOWN_TIMEOUT", "30")\n' : 'class LaunchConfig:\n',
	);
	return dir;
}

const ALL = ['TORCH_ELASTIC_SHUTDOWN_TIMEOUT', 'PET_SHUTDOWN_TIMEOUT', 'PET_SIGNALS_TO_HANDLE'];

test('a torch with --shutdown-timeout reads all three; an older one none', async () => {
	expect(torchReads(procReader(await tree(true)), PID, ALL)).toEqual(ALL);
	await rm(dir!, {recursive: true, force: true});
	expect(torchReads(procReader(await tree(false)), PID, ALL)).toEqual([]);
});

test('no torch mapped, or its files unreadable: not known', async () => {
	const root = await tree(true);
	expect(torchReads(procReader(root), PID + 1, ALL)).toBeNull();
	await rm(path.join(root, String(PID), 'root'), {recursive: true});
	expect(torchReads(procReader(root), PID, ALL)).toBeNull();
	// A path with `..` is never read.
	expect(procReader(root).file?.(PID, 'root/../maps')).toBeNull();
});

import {readFileSync} from 'node:fs';
import {cp, mkdir, mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {describe, expect, test} from 'vitest';
import {parseCmdline, parseEnviron, parseStat, parseStatus, procReader} from '../../src/system/procfs.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/proc');
const fixture = (name: string, file: string) => readFileSync(path.join(FIXTURES, name, file), 'utf8');

describe('parseStat', () => {
	test('counts fields after the last ")" so a comm with spaces and parentheses does not shift them', () => {
		const stat = parseStat(fixture('rank-handlers', 'stat'))!;
		expect(stat.comm).toBe('tr (ai) n) x');
		expect(stat).toMatchObject({state: 'S', numThreads: 1});
		expect(stat.pid).toBeGreaterThan(1);
		expect(stat.ppid).toBeGreaterThan(1);
		// Field 22 of the recorded line, counted by hand after the comm.
		const fields = fixture('rank-handlers', 'stat').split(') ').at(-1)!.split(' ');
		expect(stat.startTime).toBe(Number(fields[22 - 3]));
		expect(stat.utime).toBe(Number(fields[14 - 3]));
		expect(stat.rssPages).toBe(Number(fields[24 - 3]));
	});

	test('a zombie parses with state Z', () => {
		expect(parseStat(fixture('zombie', 'stat'))?.state).toBe('Z');
	});

	test('text that is not a stat line is null', () => {
		expect(parseStat('')).toBeNull();
		expect(parseStat('12 (x) S 1 2')).toBeNull();
		expect(parseStat('no parens here')).toBeNull();
	});
});

describe('parseStatus', () => {
	test('masks as 64-bit values, uid and VmRSS in bytes', () => {
		const status = parseStatus(fixture('rank-handlers', 'status'))!;
		expect(status.name).toBe('tr (ai) n) x');
		expect(status.sigCgt).toBe(0x4200n);
		expect(status.sigIgn).toBe(0x1001006n);
		expect(status.uid.real).toBe(0);
		expect(status.vmRssBytes).toBe(9220 * 1024);
	});

	test('blocked and pending signals; a zombie has no resident memory', () => {
		const blocked = parseStatus(fixture('blocked-pending', 'status'))!;
		expect(blocked.sigBlk).toBe(0x800n);
		expect(blocked.shdPnd).toBe(0x800n);
		expect(blocked.sigPnd).toBe(0n);
		expect(parseStatus(fixture('zombie', 'status'))?.vmRssBytes).toBeNull();
	});

	test('text without a Uid line is null', () => {
		expect(parseStatus('Name:\tx\n')).toBeNull();
	});
});

describe('parseEnviron and parseCmdline', () => {
	test('NUL-separated pairs and argv', () => {
		const env = parseEnviron(fixture('rank-handlers', 'environ'));
		expect(Object.fromEntries(env)).toEqual({
			PATH: '/usr/bin:/bin',
			RANK: '3',
			LOCAL_RANK: '1',
			WORLD_SIZE: '8',
			SLURM_JOB_ID: '4242',
			SLURM_STEP_ID: '0',
			SLURM_PROCID: '3',
		});
		const argv = parseCmdline(fixture('rank-handlers', 'cmdline'));
		expect(argv[0]).toBe('python3');
		expect(argv.slice(-3)).toEqual(['train.py', '--lr', '3e-4']);
	});

	test('a value may hold "="; a zombie has none of either', () => {
		expect(parseEnviron('A=b=c\0B=\0').get('A')).toBe('b=c');
		expect(parseEnviron('A=b=c\0B=\0').get('B')).toBe('');
		expect(parseEnviron(fixture('zombie', 'environ')).size).toBe(0);
		expect(parseCmdline(fixture('zombie', 'cmdline'))).toEqual([]);
	});
});

describe('procReader', () => {
	test('reads this very process from the real /proc', async () => {
		const proc = procReader();
		expect(await proc.listPids()).toContain(process.pid);
		const stat = await proc.stat(process.pid);
		expect(stat?.ppid).toBe(process.ppid);
		expect((await proc.status(process.pid))?.uid.real).toBe(process.getuid!());
		expect((await proc.cmdline(process.pid))?.join(' ')).toContain('node');
		expect((await proc.environ(process.pid))?.get('PATH')).toBeDefined();
	});

	test('a process that does not exist reads as null, not an exception', async () => {
		const proc = procReader();
		expect(await proc.stat(2 ** 22 + 7)).toBeNull();
		expect(await proc.environ(2 ** 22 + 7)).toBeNull();
	});

	test('can be pointed at a /proc-shaped tree of recorded processes', async () => {
		const root = await mkdtemp(path.join(tmpdir(), 'traintop-procfs-'));
		try {
			await cp(path.join(FIXTURES, 'rank-handlers'), path.join(root, '4242'), {recursive: true});
			await mkdir(path.join(root, 'self'));
			const proc = procReader(root);
			expect(await proc.listPids()).toEqual([4242]);
			expect((await proc.stat(4242))?.comm).toBe('tr (ai) n) x');
			expect((await proc.environ(4242))?.get('RANK')).toBe('3');
			expect(await proc.status(4243)).toBeNull();
		} finally {
			await rm(root, {recursive: true, force: true});
		}
	});
});

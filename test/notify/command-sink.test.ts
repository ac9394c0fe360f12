import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {commandSink} from '../../src/notify/command-sink.js';
import type {NoticeSink} from '../../src/notify/notice.js';
import {noticeBody} from '../../src/notify/notice-body.js';
import {sampleNotice} from '../helpers/sample-notice.js';
import {until} from '../helpers/until.js';

// The command sink with real /bin/sh commands: what reaches their stdin, their order, a hung one killed with its whole
// group while send() never waited, and trouble said once however often it happens.

let dir = '';
const sinks: NoticeSink[] = [];
let troubles: string[] = [];

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'traintop-command-sink-'));
	troubles = [];
});

afterEach(async () => {
	await Promise.all(sinks.splice(0).map(sink => sink.close()));
	rmSync(dir, {recursive: true, force: true});
});

function sink(command: string, timeoutS = 30): NoticeSink {
	const made = commandSink(command, {timeoutS, trouble: (name, message) => troubles.push(`${name}: ${message}`)});
	sinks.push(made);
	return made;
}

/** The pid of the sleep the command wrote to sleep.pid, once it has. */
async function sleepPid(): Promise<number> {
	return Number(
		await until(
			() => read('sleep.pid').trim(),
			text => text !== '',
			'the sleep pid',
			30_000,
		),
	);
}

function read(file: string): string {
	try {
		return readFileSync(join(dir, file), 'utf8');
	} catch {
		return '';
	}
}

/** Whether the process is still there: gone from /proc, or a zombie nobody has reaped yet, is not. */
function alive(pid: number): boolean {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
	} catch {
		return false;
	}
}

describe('commandSink', () => {
	it('gives the command the notice as one exact JSON line on stdin', async () => {
		const notice = sampleNotice();
		sink(`cat > '${dir}/in'`).send(notice);
		const expected = `${JSON.stringify(noticeBody(notice))}\n`;
		await until(
			() => read('in'),
			text => text === expected,
			'the JSON line in the file',
			30_000,
		);
		expect(JSON.parse(read('in'))).toMatchObject({text: notice.text, host: 'gpu1', notice: {state: 'raised'}});
	});

	it('runs the commands one at a time, in the order of the notices', async () => {
		const target = sink(`echo start >> '${dir}/log'; cat >> '${dir}/log'; echo end >> '${dir}/log'`);
		const episodes = ['a', 'b', 'c', 'd', 'e'];
		for (const episode of episodes) target.send(sampleNotice({episode}));
		const lines = await until(
			() =>
				read('log')
					.split('\n')
					.filter(line => line !== ''),
			seen => seen.length === 15,
			'five runs in the log',
			60_000,
		);
		for (const [index, episode] of episodes.entries()) {
			expect(lines[index * 3]).toBe('start');
			expect((JSON.parse(lines[index * 3 + 1] ?? '') as {notice: {episode: string}}).notice.episode).toBe(episode);
			expect(lines[index * 3 + 2]).toBe('end');
		}
		expect(troubles).toEqual([]);
	});

	it('kills a hung command with its whole group after the timeout, and runs the next; send never waits', async () => {
		const command = [
			'read line',
			`case "$line" in *'"hang"'*) sleep 1000 & echo $! > '${dir}/sleep.pid'; wait ;;`,
			`*) echo "$line" > '${dir}/next' ;; esac`,
		].join('\n');
		const target = sink(command, 1);
		const sendTimes: number[] = [];
		for (const episode of ['hang', 'next']) {
			const start = performance.now();
			target.send(sampleNotice({episode}));
			sendTimes.push(performance.now() - start);
		}
		const pid = await sleepPid();
		const startedAt = Date.now();
		// The API's contract, not the machine's speed: send queues and returns, it never waits for the command.
		expect(Math.max(...sendTimes)).toBeLessThan(50);
		await until(
			() => alive(pid),
			live => !live,
			`sleep ${pid} gone`,
			30_000,
		);
		const next = await until(
			() => read('next'),
			text => text !== '',
			'the next notice run',
			30_000,
		);
		// Killed at the timeout (1 s after its start, which came before the pid file), not before.
		expect(Date.now() - startedAt).toBeGreaterThan(500);
		expect((JSON.parse(next) as {notice: {episode: string}}).notice.episode).toBe('next');
		expect(troubles).toHaveLength(1);
		expect(troubles[0]).toMatch(/^command: command `read line\\n.*` still ran after 1 s and was killed/);
	});

	it('kills with SIGKILL after a short grace a hung command that ignores SIGTERM', async () => {
		sink(`trap '' TERM; cat > /dev/null; sleep 1000 & echo $! > '${dir}/sleep.pid'; wait`, 1).send(sampleNotice());
		const pid = await sleepPid();
		const sleepStatus = readFileSync(`/proc/${pid}/status`, 'utf8');
		// SIGTERM (15) is bit 14 of SigIgn: the sleep ignores it as its shell does.
		expect((BigInt(`0x${/^SigIgn:\s+(\w+)/m.exec(sleepStatus)?.[1] ?? '0'}`) >> 14n) & 1n).toBe(1n);
		await until(
			() => alive(pid),
			live => !live,
			`sleep ${pid} gone`,
			30_000,
		);
		expect(troubles).toHaveLength(1);
		expect(troubles[0]).toContain('still ran after 1 s and was killed');
	});

	it('says a failing command once, with its exit code, its stderr and the command cut short, then counts', async () => {
		const command = `cat >> '${dir}/runs'; echo 'no mail server' >&2; exit 3 # ${'x'.repeat(100)}`;
		const target = sink(command);
		for (let index = 0; index < 4; index++) target.send(sampleNotice({episode: `e${index}`}));
		await until(
			() => read('runs').split('\n').length - 1,
			count => count === 4,
			'four runs',
			60_000,
		);
		await target.close();
		expect(troubles).toHaveLength(2);
		const [first, summary] = troubles;
		expect(first).toContain('exited with code 3: no mail server; later ones are counted, not said');
		const quoted = /`([^`]*)`/.exec(first ?? '')?.[1] ?? '';
		expect(quoted).toHaveLength(80);
		expect(quoted).toBe(`${command.slice(0, 79)}…`);
		expect(summary).toContain('in all, 4 runs failed');
	});

	it('at close lets the running command end within its timeout and drops what waits, said once', async () => {
		const target = sink(`cat >> '${dir}/runs'; sleep 1000`, 1);
		for (const episode of ['a', 'b', 'c']) target.send(sampleNotice({episode}));
		await until(
			() => read('runs'),
			text => text !== '',
			'the first run',
			30_000,
		);
		await target.close();
		expect(read('runs').split('\n')).toHaveLength(2);
		expect(troubles).toHaveLength(2);
		expect(troubles).toContainEqual(expect.stringContaining('2 notice(s) not run, traintop was ending'));
		expect(troubles).toContainEqual(expect.stringContaining('still ran after 1 s and was killed'));
	});

	it('keeps at most 100 notices waiting, drops the oldest, says so once, and ends within the timeout at close', async () => {
		const target = sink(`cat > /dev/null; sleep 1000`, 2);
		for (let index = 0; index < 150; index++) target.send(sampleNotice({episode: `e${index}`}));
		// One runs, 100 wait: 49 were dropped, said once.
		expect(troubles.filter(line => line.includes('fell behind'))).toHaveLength(1);
		const start = Date.now();
		await target.close();
		expect(Date.now() - start).toBeLessThan(15_000);
		expect(troubles.at(-1)).toContain('149 notices dropped');
		expect(troubles.some(line => line.includes('still ran after 2 s'))).toBe(true);
	});
});

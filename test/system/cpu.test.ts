import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, test} from 'vitest';
import {busyPercent, hostCpuReader, parseLoadAvg, parseProcStat} from '../../src/system/cpu.js';

const STAT = (user: number, idle: number) =>
	[
		`cpu  ${user} 0 100 ${idle} 50 0 10 0 0 0`,
		'cpu0 1 0 1 1 0 0 0 0 0 0',
		'cpu1 1 0 1 1 0 0 0 0 0 0',
		'intr 12345',
		'btime 1700000000',
	].join('\n');

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true});
});

test('parses the aggregate cpu line (idle includes iowait) and counts the cores', () => {
	expect(parseProcStat(STAT(1000, 8000))).toEqual({times: {total: 9160, idle: 8050}, cores: 2});
	expect(parseProcStat('intr 1\n')).toBeNull();
	expect(parseProcStat('cpu  a b c d\n')).toBeNull();
});

test('load average: the three numbers, or null', () => {
	expect(parseLoadAvg('0.42 0.30 0.25 2/345 6789\n')).toEqual([0.42, 0.3, 0.25]);
	expect(parseLoadAvg('garbage')).toBeNull();
});

test('busy share between two readings; none when no time passed', () => {
	expect(busyPercent({total: 1000, idle: 800}, {total: 2000, idle: 1300})).toBe(50);
	expect(busyPercent({total: 1000, idle: 800}, {total: 1000, idle: 800})).toBeNull();
});

test('the reader: no percent on the first read, the busy share since the last after it; null without /proc', () => {
	const root = mkdtempSync(path.join(tmpdir(), 'traintop-cpu-'));
	dirs.push(root);
	writeFileSync(path.join(root, 'loadavg'), '1.00 0.50 0.25 1/100 42\n');
	writeFileSync(path.join(root, 'stat'), STAT(1000, 8000));
	const read = hostCpuReader(root);
	expect(read()).toEqual({percent: null, cores: 2, load: [1, 0.5, 0.25]});
	// 300 more busy jiffies, 100 more idle: 75 % busy.
	writeFileSync(path.join(root, 'stat'), STAT(1300, 8100));
	expect(read()?.percent).toBe(75);
	expect(hostCpuReader(path.join(root, 'missing'))()).toBeNull();
	// The real /proc: a plausible reading.
	const real = hostCpuReader();
	real();
	const second = real();
	expect(second?.cores).toBeGreaterThanOrEqual(1);
	expect(second?.load?.length).toBe(3);
});

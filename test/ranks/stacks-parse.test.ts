import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, test} from 'vitest';
import {processLines} from '../../src/format/stacks.js';
import {readKernelView, sampleThreads} from '../../src/ranks/kernel-view.js';
import {parsePySpyJson, pySpyProblem} from '../../src/ranks/py-spy.js';
import {parseKernelStack, parseWchan, threadSample, threadViews} from '../../src/ranks/thread-view.js';
import {procReader} from '../../src/system/procfs.js';

// The parsers of `traintop stacks` over what real processes gave: /proc of a real DDP job whose rank 0 waits in
// gloo's all_reduce for a stopped rank 1 (test/fixtures/proc/ddp-gloo-blocked, Linux 6.18), and py-spy 0.4.2's JSON
// and error words (test/fixtures/py-spy; their READMEs say how each was recorded).

const FIXTURES = path.join(import.meta.dirname, '../fixtures');
const proc = procReader(path.join(FIXTURES, 'proc/ddp-gloo-blocked'));
const RANK0 = 27_867;
const RANK1 = 27_868;
const pySpy = (name: string) => readFileSync(path.join(FIXTURES, 'py-spy', name), 'utf8');

describe('the kernel view of a recorded rank', () => {
	test('rank 0 waits in futex_do_wait; each thread with its name, state, wait and CPU time', () => {
		const view = readKernelView(proc, RANK0, null, 0);
		expect(view).not.toBeNull();
		expect(view?.state).toBe('S');
		expect(view?.wchan).toBe('futex_do_wait');
		expect(view?.threads.map(t => t.tid)).toEqual([27_867, 27_872, 27_874, 27_875, 27_877]);
		expect(view?.threads.map(t => t.wchan)).toEqual([
			'futex_do_wait',
			'poll_schedule_timeout.constprop.0',
			'do_epoll_wait',
			'futex_do_wait',
			'futex_do_wait',
		]);
		expect(view?.threads.every(t => t.name === 'python3' && t.cpuPercent === null)).toBe(true);
		// utime + stime of the main thread, in seconds (USER_HZ 100).
		const stat = readFileSync(path.join(FIXTURES, 'proc/ddp-gloo-blocked/27867/task/27867/stat'), 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		expect(view?.threads[0]?.cpuSeconds).toBeCloseTo((Number(fields[11]) + Number(fields[12])) / 100, 5);
		expect(view?.stack?.[0]).toBe('futex_do_wait+0x46/0x90');
		expect(view?.stack).toContain('__x64_sys_futex+0x12d/0x230');
		expect(view?.stackProblem).toBeNull();
	});

	test('rank 1, stopped: T, in do_signal_stop', () => {
		const view = readKernelView(proc, RANK1, null, 0);
		expect(view?.state).toBe('T');
		expect(view?.stack?.[0]).toMatch(/^do_signal_stop\+/);
	});

	test('a pid the tree does not have is gone', () => {
		expect(sampleThreads(proc, 4242)).toBeNull();
		expect(readKernelView(proc, 4242, null, 0)).toBeNull();
	});

	test('CPU share between two reads, of one core, the main thread first', () => {
		const before = [
			{tid: 11, name: 'a', state: 'R', wchan: null, cpuSeconds: 1},
			{tid: 10, name: 'main', state: 'S', wchan: 'futex_do_wait', cpuSeconds: 5},
		];
		const after = [...before.map(t => ({...t, cpuSeconds: t.cpuSeconds + (t.tid === 11 ? 0.1 : 0)}))];
		after.push({tid: 12, name: 'new', state: 'S', wchan: null, cpuSeconds: 0});
		const views = threadViews(10, before, after, 200);
		expect(views.map(v => [v.tid, v.cpuPercent === null ? null : Math.round(v.cpuPercent)])).toEqual([
			[10, 0],
			[11, 50],
			[12, null],
		]);
	});
});

describe('the /proc parsers', () => {
	test('wchan: a symbol, or null while running (0 or empty) or when it is not a symbol', () => {
		expect(parseWchan('futex_do_wait')).toBe('futex_do_wait');
		expect(parseWchan('poll_schedule_timeout.constprop.0')).toBe('poll_schedule_timeout.constprop.0');
		expect(parseWchan('0')).toBeNull();
		expect(parseWchan('')).toBeNull();
		expect(parseWchan(null)).toBeNull();
		expect(parseWchan('a\u001B]0;x')).toBeNull();
	});

	test('stack: the frames without their zeroed addresses', () => {
		expect(parseKernelStack('[<0>] hrtimer_nanosleep+0xb5/0x130\n[<0>] do_syscall_64+0x71/0x290\n')).toEqual([
			'hrtimer_nanosleep+0xb5/0x130',
			'do_syscall_64+0x71/0x290',
		]);
		expect(parseKernelStack('')).toEqual([]);
	});

	test('a thread whose stat is not a stat line (ended) is none', () => {
		expect(threadSample('', 'x\n', '0')).toBeNull();
		expect(threadSample(null, null, null)).toBeNull();
	});
});

describe("py-spy's output", () => {
	test('its JSON: rank 0 in backward, under main of ddp_plain.py', () => {
		const threads = parsePySpyJson(pySpy('ddp-rank0-all-reduce.json'));
		expect(threads).toHaveLength(1);
		const [main] = threads!;
		expect(main?.tid).toBe(RANK0);
		expect(main?.name).toBe('MainThread');
		expect(main?.active).toBe(false);
		expect(main?.frames.map(f => f.name)).toEqual(['backward', 'backward', 'main', '<module>']);
		expect(main?.frames[2]).toMatchObject({shortFile: 'ddp_plain.py', line: 82});
		expect(main?.frames[0]?.shortFile).toBe('torch/autograd/__init__.py');
	});

	test('anything but its list is not taken for one', () => {
		expect(parsePySpyJson('Process 1: python')).toBeNull();
		expect(parsePySpyJson('{"frames": []}')).toBeNull();
		expect(parsePySpyJson('[{"thread_name": "x"}]')).toBeNull();
	});

	test('its errors: the words, never the backtrace', () => {
		expect(pySpyProblem(pySpy('no-such-pid.stderr'))).toBe(
			'Error: Failed to get process executable name. Check that the process is running.; 0: No such file or directory (os error 2); 1: No such file or directory (os error 2)',
		);
		expect(pySpyProblem(pySpy('not-python.stderr'))).toBe('Error: Failed to find python version from target process');
		expect(pySpyProblem(pySpy('permission-denied.stderr'))).toMatch(/^Permission Denied: Try running again/);
		expect(pySpyProblem('')).toBe('no words on stderr');
	});
});

test("the words of a rank: each thread's state and wait, its Python frames under its thread, its kernel stack", () => {
	const kernel = readKernelView(proc, RANK0, null, 0)!;
	const python = parsePySpyJson(pySpy('ddp-rank0-all-reduce.json'));
	const base = {role: 'rank', rank: 0, pid: RANK0, startTime: 1, of: null, kernel, gone: false} as const;
	const lines = processLines({
		...base,
		method: 'py-spy',
		python,
		pySpyProblem: null,
		pySpyOutput: null,
		pySpyMs: 12,
	});
	expect(lines[0]).toBe('rank 0  pid 27867  S in futex_do_wait  5 threads  (py-spy 12 ms)');
	expect(lines[1]).toMatch(
		/^ {2}thread 27867 "MainThread" \(python3\) {2}S in futex_do_wait {2}cpu \d+\.\d s {2}idle$/,
	);
	expect(lines[2]).toBe('      backward (torch/autograd/__init__.py:197)');
	expect(lines).toContain('      main (ddp_plain.py:82)');
	expect(lines).toContain('  kernel stack of the main thread:');
	const kernelOnly = processLines({
		...base,
		method: 'kernel',
		python: null,
		pySpyProblem: null,
		pySpyOutput: null,
		pySpyMs: null,
	});
	expect(kernelOnly.some(line => line.includes('main (ddp_plain.py'))).toBe(false);
	expect(
		processLines({
			...base,
			kernel: null,
			gone: true,
			method: 'kernel',
			python: null,
			pySpyProblem: null,
			pySpyOutput: null,
			pySpyMs: null,
		}),
	).toEqual(["rank 0  pid 27867  gone: it exited (or its pid is another process's now); not read"]);
});

import {readFileSync} from 'node:fs';
import {afterEach} from 'vitest';
import type {PythonChild} from './python-child.js';

// Real processes that share pages, for the job-memory tests: a python3 parent that forks two children (as a
// DataLoader forks its workers), the test's own smem-style reading of each one's PSS, and the cleanup that kills
// parents and forked children alike after each test.

/** Python lines that fork two children running `child` (indented lines) and then sleeping; each pid printed. */
export function forkTwo(child: readonly string[] = []): string {
	return [
		'for _ in range(2):',
		'    pid = os.fork()',
		'    if pid == 0:',
		...child.map(line => `        ${line}`),
		'        while True: signal.pause()',
		'    os.write(1, ("worker %d\\n" % pid).encode())',
	].join('\n');
}

/** What smem sums: a process's own `Pss:` line of /proc/PID/smaps_rollup, in bytes; null when it is gone. */
export function pssOf(pid: number): number | null {
	try {
		const match = /^Pss:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
		return match ? Number(match[1]) * 1024 : null;
	} catch {
		return null;
	}
}

/** The test file's processes: children started and pids forked by them, all SIGKILLed after each test. */
export function killedAfterEach(): {readonly children: PythonChild[]; readonly strays: number[]} {
	const children: PythonChild[] = [];
	const strays: number[] = [];
	afterEach(() => {
		for (const child of children.splice(0)) child.kill('SIGKILL');
		for (const pid of strays.splice(0)) {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {
				// already gone
			}
		}
	});
	return {children, strays};
}

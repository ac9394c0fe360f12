// What the benches read about a process from /proc: CPU seconds (utime + stime of the whole process, all its
// threads, not its children) and the kernel's memory counters (VmRSS now, VmHWM its high-water mark).

import {execFileSync} from 'node:child_process';
import {readFileSync} from 'node:fs';

const clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** utime + stime of one process, in seconds (fields 14 and 15, counted after the ')' of comm). */
export function cpuSeconds(pid) {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** A `Key:   123 kB` line of /proc/PID/status, in kB; NaN when the process or the line is gone. */
export function statusKb(pid, key) {
	try {
		const status = readFileSync(`/proc/${pid}/status`, 'utf8');
		return Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
	} catch {
		return Number.NaN;
	}
}

export function commandExists(name) {
	try {
		execFileSync('sh', ['-c', `command -v ${name}`], {stdio: 'ignore'});
		return true;
	} catch {
		return false;
	}
}

/** Exits with status 2 naming the first missing requirement. `needs` is [what, ok] pairs. */
export function requireAll(bench, needs) {
	for (const [what, ok] of needs) {
		if (!ok) {
			console.error(`${bench} needs ${what}`);
			process.exit(2);
		}
	}
}

export const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

/** The value after `--name` on the command line, or `fallback`. */
export function argValue(name, fallback) {
	const i = process.argv.indexOf(name);
	return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

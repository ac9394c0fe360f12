import type {KernelView, StackProblem} from '../ranks/kernel-view.js';
import type {PyThread} from '../ranks/py-spy.js';
import type {ProcessStacks, PySpyUsed} from '../ranks/stacks.js';
import type {ThreadView} from '../ranks/thread-view.js';
import {printable} from './printable.js';

// Where each process of a job is, in words: `traintop stacks` prints these lines and the TUI's rank detail shows them
// (w). Everything a process or py-spy said (thread and function names, files, py-spy's errors) is made printable.

/** How to get py-spy, and what it needs: said wherever the kernel's view stands in for it. */
const PY_SPY_HINT =
	"py-spy is not on PATH: the kernel's view only. For each thread's Python frames: pip install py-spy (it reads " +
	"another process's memory: root or CAP_SYS_PTRACE, or the same user with kernel.yama.ptrace_scope = 0).";

export const STACK_PROBLEM_TEXT: Readonly<Record<StackProblem, string>> = {
	'not-root': 'kernel stack: root only (the kernel shows /proc/PID/stack to CAP_SYS_ADMIN)',
	unreadable: 'kernel stack: unreadable (a kernel without CONFIG_STACKTRACE, or the process ended)',
};

/** `rank 0  pid 27867`, `worker of rank 0 (pid 27867)  pid 27901`. */
function processTitle(p: Pick<ProcessStacks, 'role' | 'rank' | 'pid' | 'of'>): string {
	const rank = p.rank === null ? 'rank ?' : `rank ${p.rank}`;
	return p.role === 'rank' ? `${rank}  pid ${p.pid}` : `worker of ${rank} (pid ${p.of})  pid ${p.pid}`;
}

/** `S in futex_do_wait`, `R running`. */
function where(state: string, wchan: string | null): string {
	return wchan === null ? `${printable(state)} running` : `${printable(state)} in ${wchan}`;
}

const cpuText = (thread: ThreadView): string =>
	`cpu ${thread.cpuSeconds.toFixed(1)} s${thread.cpuPercent === null ? '' : ` ${Math.round(thread.cpuPercent)}%`}`;

/** A thread's line: its tid, Python's name for it where py-spy gave one, the kernel's name, state, wait, CPU. */
function threadLine(thread: ThreadView, python: PyThread | undefined): string {
	const pyName = python?.name ? `"${printable(python.name)}" ` : '';
	const activity = python ? (python.active ? '  active' : '  idle') + (python.ownsGil ? ', holds the GIL' : '') : '';
	return `  thread ${thread.tid} ${pyName}(${printable(thread.name)})  ${where(thread.state, thread.wchan)}  ${cpuText(thread)}${activity}`;
}

/** py-spy's frames, innermost first as it prints them: `main (ddp_plain.py:110)`. */
function frameLines(python: PyThread): string[] {
	return python.frames.map(
		frame => `      ${printable(frame.name)} (${printable(frame.shortFile)}${frame.line > 0 ? `:${frame.line}` : ''})`,
	);
}

function kernelStackLines(kernel: KernelView): string[] {
	if (kernel.stack === null) return [`  ${STACK_PROBLEM_TEXT[kernel.stackProblem ?? 'unreadable']}`];
	if (kernel.stack.length === 0) return ['  kernel stack: empty (running in user space)'];
	return ['  kernel stack of the main thread:', ...kernel.stack.map(frame => `      ${printable(frame)}`)];
}

/** One process: its title and state, each thread (with its Python frames by py-spy), its kernel stack. */
export function processLines(p: ProcessStacks): string[] {
	const title = processTitle(p);
	if (p.gone || p.kernel === null) return [`${title}  gone: it exited (or its pid is another process's now); not read`];
	const {kernel} = p;
	const took = p.pySpyMs === null ? '' : `  (py-spy ${Math.round(p.pySpyMs)} ms)`;
	const lines = [
		`${title}  ${where(kernel.state, kernel.wchan)}  ${kernel.threads.length} thread${kernel.threads.length === 1 ? '' : 's'}${took}`,
	];
	if (p.pySpyProblem !== null) lines.push(`  py-spy: ${printable(p.pySpyProblem)}`);
	if (p.pySpyOutput !== null) lines.push(...p.pySpyOutput.split('\n').map(line => `  | ${printable(line)}`));
	const byTid = new Map((p.python ?? []).map(thread => [thread.tid, thread]));
	for (const thread of kernel.threads) {
		const python = byTid.get(thread.tid);
		lines.push(threadLine(thread, python));
		if (python) lines.push(...frameLines(python));
	}
	// A Python thread py-spy saw that /proc no longer lists (it ended between the reads).
	for (const python of p.python ?? [])
		if (!kernel.threads.some(thread => thread.tid === python.tid)) {
			lines.push(
				`  thread ${python.tid ?? '?'} "${printable(python.name ?? '')}"  (ended since)`,
				...frameLines(python),
			);
		}
	lines.push(...kernelStackLines(kernel));
	return lines;
}

/** Every process of the job, with a blank line between, after what the reading used (py-spy, or how to get it). */
export function stacksLines(processes: readonly ProcessStacks[], pySpy: PySpyUsed | null): string[] {
	const head = pySpy
		? [
				`Python frames by ${pySpy.version ?? 'py-spy'} (${printable(pySpy.path)}), innermost first; py-spy does not pause a process (--nonblocking).`,
			]
		: [PY_SPY_HINT];
	return [...head, ...processes.flatMap(p => ['', ...processLines(p)])];
}

import type {PyThread} from '../ranks/py-spy.js';
import type {ProcessStacks, PySpyUsed} from '../ranks/stacks.js';
import type {ThreadView} from '../ranks/thread-view.js';
import {versioned} from './json-version.js';
import {STACK_PROBLEM_TEXT} from './stacks.js';

// `traintop stacks --json`: one object, each process with its kernel threads and, where py-spy read them, each
// thread's Python frames (innermost first). Strings are as read (JSON escapes them); docs/jobs-and-signals.md lists
// the keys.

function threadJson(thread: ThreadView, python: PyThread | undefined) {
	return {
		tid: thread.tid,
		name: thread.name,
		state: thread.state,
		wchan: thread.wchan,
		cpu_seconds: thread.cpuSeconds,
		cpu_percent: thread.cpuPercent === null ? null : Math.round(thread.cpuPercent * 10) / 10,
		...(python
			? {
					python_name: python.name,
					active: python.active,
					owns_gil: python.ownsGil,
					frames: python.frames.map(frame => ({name: frame.name, file: frame.file, line: frame.line})),
				}
			: {}),
	};
}

function processJson(p: ProcessStacks) {
	const byTid = new Map((p.python ?? []).map(thread => [thread.tid, thread]));
	const kernel = p.kernel;
	const problem = p.gone
		? 'gone: it exited (or its pid is another process now); not read'
		: (p.pySpyProblem ?? (kernel?.stackProblem ? STACK_PROBLEM_TEXT[kernel.stackProblem] : null));
	return {
		role: p.role,
		rank: p.rank,
		pid: p.pid,
		...(p.of === null ? {} : {of: p.of}),
		start_time: p.startTime,
		method: p.method,
		gone: p.gone,
		state: kernel?.state ?? null,
		wchan: kernel?.wchan ?? null,
		threads: (kernel?.threads ?? []).map(thread => threadJson(thread, byTid.get(thread.tid))),
		kernel_stack: kernel?.stack ?? null,
		py_spy_ms: p.pySpyMs === null ? null : Math.round(p.pySpyMs),
		...(problem === null ? {} : {problem}),
		...(p.pySpyOutput === null ? {} : {text: p.pySpyOutput}),
	};
}

export function stacksJson(job: string, pySpy: PySpyUsed | null, processes: readonly ProcessStacks[]) {
	return versioned({
		job,
		method: pySpy === null ? 'kernel' : 'py-spy',
		py_spy: pySpy,
		processes: processes.map(processJson),
	});
}

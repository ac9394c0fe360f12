import {spawn} from 'node:child_process';
import {accessSync, constants, statSync} from 'node:fs';
import path from 'node:path';
import type {ProcReader} from '../system/procfs.js';

// A process's Python stack through py-spy (github.com/benfred/py-spy, read at v0.4.2): `py-spy dump --pid PID --json
// --nonblocking`. --json prints serde's form of its StackTrace list (src/dump.rs write_traces; the fields in
// src/stack_trace.rs: thread_name, os_thread_id, active, owns_gil, frames[{name, filename, short_filename, line}]).
// --nonblocking reads the interpreter's memory without pausing the process (README, "How can I avoid pausing the
// Python program?"): traintop never stops a rank, and a killed py-spy leaves nothing attached. The price the README
// names, a torn read of a stack that moves under it, cannot happen to a rank that is stuck, which is what this is
// for. py-spy exits 1 on every failure, its words on stderr (src/main.rs main): "Permission Denied: …" without
// ptrace rights, "Error: Failed to find python version from target process" for a process that is not Python.

export interface PyFrame {
	/** The function. */
	readonly name: string;
	/** The whole path, and py-spy's short form of it (the package part). */
	readonly file: string;
	readonly shortFile: string;
	/** 0 where py-spy has no line. */
	readonly line: number;
}

export interface PyThread {
	/** The OS thread id (a /proc/PID/task entry); null where py-spy could not tell it. */
	readonly tid: number | null;
	/** Python's name for the thread (MainThread, Thread-1…); null where it has none. */
	readonly name: string | null;
	/** Running Python code at the read (py-spy judges it from the thread's /proc state); false: idle. */
	readonly active: boolean;
	readonly ownsGil: boolean;
	/** Innermost first, as py-spy lists them. */
	readonly frames: readonly PyFrame[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const int = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) ? value : null);

function frameOf(value: unknown): PyFrame | null {
	if (!isRecord(value) || text(value.name) === null) return null;
	const file = text(value.filename) ?? '';
	return {name: text(value.name)!, file, shortFile: text(value.short_filename) ?? file, line: int(value.line) ?? 0};
}

/** `py-spy dump --json`'s output: its threads; null when it is not that list. */
export function parsePySpyJson(output: string): PyThread[] | null {
	let value: unknown;
	try {
		value = JSON.parse(output);
	} catch {
		return null;
	}
	if (!Array.isArray(value)) return null;
	const threads: PyThread[] = [];
	for (const trace of value) {
		if (!isRecord(trace) || !Array.isArray(trace.frames)) return null;
		threads.push({
			tid: int(trace.os_thread_id),
			name: text(trace.thread_name),
			active: trace.active === true,
			ownsGil: trace.owns_gil === true,
			frames: trace.frames.flatMap(frame => frameOf(frame) ?? []),
		});
	}
	return threads;
}

/** What py-spy said on stderr, without the backtrace anyhow appends: `Permission Denied: …`, `Error: …` and its causes. */
export function pySpyProblem(stderr: string): string {
	const said = stderr.split(/\n\s*Stack backtrace:/)[0] ?? '';
	const lines = said
		.split('\n')
		.map(line => line.trim())
		.filter(line => line !== '' && line !== 'Caused by:');
	return lines.join('; ') || 'no words on stderr';
}

/** The py-spy on PATH (an executable file named py-spy), or null. */
export function findPySpy(pathEnv = process.env.PATH ?? ''): string | null {
	for (const dir of pathEnv.split(path.delimiter)) {
		if (dir === '') continue;
		const candidate = path.join(dir, 'py-spy');
		try {
			if (!statSync(candidate).isFile()) continue;
			accessSync(candidate, constants.X_OK);
			return candidate;
		} catch {
			// not here
		}
	}
	return null;
}

interface Ran {
	readonly code: number | null;
	readonly stdout: string;
	readonly stderr: string;
	readonly timedOut: boolean;
	readonly ms: number;
}

/** Runs `binary args`, killed (SIGKILL) after `timeoutMs`; never rejects. */
function run(binary: string, args: readonly string[], timeoutMs: number): Promise<Ran> {
	const started = performance.now();
	return new Promise(resolve => {
		// anyhow prints a Rust backtrace after the error when RUST_BACKTRACE is set: the words are enough here.
		const child = spawn(binary, args, {stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, RUST_BACKTRACE: '0'}});
		let stdout = '';
		let stderr = '';
		let timedOut = false;
		child.stdout.on('data', (chunk: Buffer) => {
			stdout += chunk.toString();
		});
		child.stderr.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		const timer = setTimeout(() => {
			timedOut = true;
			child.kill('SIGKILL');
		}, timeoutMs);
		const done = (code: number | null, error = ''): void => {
			clearTimeout(timer);
			resolve({code, stdout, stderr: stderr + error, timedOut, ms: performance.now() - started});
		};
		child.once('error', error => done(null, error.message));
		child.once('close', code => done(code));
	});
}

/** `py-spy --version`'s words (`py-spy 0.4.2`), or null. */
export async function pySpyVersion(binary: string): Promise<string | null> {
	const ran = await run(binary, ['--version'], 5000);
	return ran.code === 0 ? ran.stdout.trim() || null : null;
}

export type PySpyDump =
	| {readonly kind: 'threads'; readonly threads: readonly PyThread[]; readonly ms: number}
	/** The pid is no longer the process named (exited, or its pid reused): py-spy was not run. */
	| {readonly kind: 'gone'}
	/** py-spy ran and gave no stack: its words (or the timeout), and what it printed when that was not JSON. */
	| {readonly kind: 'failed'; readonly problem: string; readonly output: string | null; readonly ms: number};

/** Longest a dump may take: a process whose memory cannot be read in this long is reported, not waited for. */
const PY_SPY_TIMEOUT_MS = 10_000;

/**
 * The Python stack of the process `target` names (pid and start time, /proc/PID/stat field 22): its identity is read
 * again right before py-spy runs, so a pid that now holds another process is never read.
 */
export async function dumpPython(
	binary: string,
	target: {readonly pid: number; readonly startTime: number},
	proc: ProcReader,
	timeoutMs = PY_SPY_TIMEOUT_MS,
): Promise<PySpyDump> {
	if (proc.stat(target.pid)?.startTime !== target.startTime) return {kind: 'gone'};
	const ran = await run(binary, ['dump', '--pid', String(target.pid), '--json', '--nonblocking'], timeoutMs);
	if (ran.timedOut)
		return {
			kind: 'failed',
			problem: `py-spy gave no answer in ${timeoutMs / 1000} s (killed)`,
			output: null,
			ms: ran.ms,
		};
	const threads = ran.code === 0 ? parsePySpyJson(ran.stdout) : null;
	if (threads !== null) return {kind: 'threads', threads, ms: ran.ms};
	if (ran.code === 0)
		return {kind: 'failed', problem: 'py-spy printed no stack list', output: ran.stdout.trim() || null, ms: ran.ms};
	return {kind: 'failed', problem: pySpyProblem(ran.stderr), output: null, ms: ran.ms};
}

import type {PythonChild} from './python-child.js';
import {until} from './until.js';

/**
 * A setup line for startPython: a handler for `signal` (a name from Python's signal module, "SIGUSR1") that writes
 * "got NAME" straight to fd 1. Unlike the prelude's on(), which uses print, it cannot fail when the signal lands while
 * the main thread is still inside print("ready") (a test signals as soon as it reads "ready"): print in a handler
 * then raises "reentrant call inside <_io.BufferedWriter name='<stdout>'>" and the child dies.
 */
export function echoOn(signal: string, name: string): string {
	return `signal.signal(signal.${signal}, lambda *a: os.write(1, b"got ${name}\\n"))`;
}

const gone = (child: PythonChild) => child.child.exitCode !== null || child.child.signalCode !== null;

/** Resolves with the child's lines once `line` is among them or the child has exited (the caller's assertions say which). */
async function lineOrExit(child: PythonChild, line: string): Promise<string[]> {
	await until(
		() => child.lines,
		lines => lines.includes(line) || gone(child),
		`"${line}" from pid ${child.pid}`,
	);
	return [...child.lines];
}

/**
 * Sends the child `signal`, which it handles with echoOn(signal, name), and resolves with its lines once it printed
 * "got NAME" (or exited). A later event for negative checks: a signal sent to the child before the ping is pending or
 * handled by then; Python runs the handlers of signals that arrived together in signal-number order, so a handled
 * signal with a lower number than the ping's has printed its line first, and one that kills ended the child first.
 */
export async function ping(child: PythonChild, signal: NodeJS.Signals, name: string): Promise<string[]> {
	try {
		process.kill(child.pid, signal);
	} catch {
		// ESRCH: it died already; lineOrExit sees that
	}
	return lineOrExit(child, `got ${name}`);
}

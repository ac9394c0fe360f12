import {spawn, type ChildProcess} from 'node:child_process';
import {createInterface} from 'node:readline';

export interface PythonChild {
	readonly child: ChildProcess;
	readonly pid: number;
	/** Lines the script printed after "ready". */
	readonly lines: string[];
	readonly exited: Promise<{code: number | null; signal: NodeJS.Signals | null}>;
	kill(signal?: NodeJS.Signals): void;
}

/**
 * Starts a real python3 process that runs `setup` (install handlers, block signals…), prints
 * "ready", then sleeps until killed. Resolves once "ready" is printed, so /proc reflects the setup.
 * Handlers installed with `on(signal, "NAME")` print "got NAME" when the signal arrives. `tag` is
 * its last argv word, so a test can find exactly its own processes with --match.
 */
export async function startPython(
	setup: string,
	env: Record<string, string> = {},
	tag = 'traintop-test-rank',
): Promise<PythonChild> {
	const prelude = [
		'import os, signal, sys, time',
		// os.write, not print: a handler that prints while the main thread is inside print("ready")
		// raises "reentrant call inside BufferedWriter" and kills the child.
		'def on(sig, name):',
		'    signal.signal(sig, lambda *a: os.write(1, ("got " + name + "\\n").encode()))',
	].join('\n');
	const script = `${prelude}\n${setup}\nprint("ready", flush=True)\nwhile True: signal.pause()\n`;
	const child = spawn('python3', ['-c', script, tag], {
		env: {PATH: process.env.PATH ?? '/usr/bin:/bin', ...env},
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>(resolve =>
		child.once('exit', (code, signal) => resolve({code, signal})),
	);
	const lines: string[] = [];
	await new Promise<void>((resolve, reject) => {
		const rl = createInterface({input: child.stdout!});
		rl.on('line', line => {
			if (line === 'ready') resolve();
			else lines.push(line);
		});
		child.once('error', reject);
		void exited.then(({code, signal}) => reject(new Error(`python3 exited (${code ?? signal}) before it was ready`)));
	});
	return {
		child,
		pid: child.pid!,
		lines,
		exited,
		kill: (signal = 'SIGKILL') => {
			if (child.exitCode === null && child.signalCode === null) child.kill(signal);
		},
	};
}

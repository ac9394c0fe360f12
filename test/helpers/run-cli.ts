import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process';
import {CLI, requireBuild} from './dist.js';

export interface CliRun {
	readonly child: ChildProcessWithoutNullStreams;
	stdout(): string;
	stderr(): string;
	/** Resolves once the output (stdout or stderr) satisfies the predicate, or rejects at the deadline. */
	waitFor(predicate: (out: {stdout: string; stderr: string}) => boolean, timeoutMs?: number): Promise<void>;
	/** Resolves with the exit code (or the signal name) when the process has exited. */
	exited: Promise<number | string>;
}

/** Starts the built `traintop` as a real child process with pipes (so stdout is not a TTY). */
export function startCli(
	args: readonly string[],
	options: {env?: NodeJS.ProcessEnv; cwd?: string; uid?: number; gid?: number} = {},
): CliRun {
	requireBuild();
	const child = spawn(process.execPath, [CLI, ...args], {
		cwd: options.cwd,
		// As another user (root only): what a non-root user meets, such as a run dir they may not read.
		...(options.uid === undefined ? {} : {uid: options.uid, gid: options.gid ?? options.uid}),
		env: {...process.env, ...options.env},
		stdio: ['pipe', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	const waiters = new Set<() => void>();
	const poke = () => {
		for (const w of waiters) w();
	};
	child.stdout.on('data', (chunk: Buffer) => {
		stdout += chunk.toString();
		poke();
	});
	child.stderr.on('data', (chunk: Buffer) => {
		stderr += chunk.toString();
		poke();
	});
	const exited = new Promise<number | string>(resolve => {
		child.once('close', (code, signal) => {
			poke();
			resolve(code ?? signal ?? -1);
		});
	});
	return {
		child,
		stdout: () => stdout,
		stderr: () => stderr,
		exited,
		waitFor(predicate, timeoutMs = 10_000) {
			return new Promise<void>((resolve, reject) => {
				const check = () => {
					if (predicate({stdout, stderr})) {
						clearTimeout(timer);
						waiters.delete(check);
						resolve();
					}
				};
				const timer = setTimeout(() => {
					waiters.delete(check);
					reject(new Error(`timed out after ${timeoutMs} ms\n--- stdout:\n${stdout}\n--- stderr:\n${stderr}`));
				}, timeoutMs);
				waiters.add(check);
				check();
			});
		},
	};
}

/** Runs the CLI to completion. */
export async function runCli(
	args: readonly string[],
	options: {env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number} = {},
): Promise<{code: number | string; stdout: string; stderr: string}> {
	const run = startCli(args, options);
	run.child.stdin.end();
	const timer = setTimeout(() => run.child.kill('SIGKILL'), options.timeoutMs ?? 15_000);
	const code = await run.exited;
	clearTimeout(timer);
	return {code, stdout: run.stdout(), stderr: run.stderr()};
}

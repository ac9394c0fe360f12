import {spawn} from 'node:child_process';
import {CONFIG_MAX_BYTES} from '../config/config-text.js';
import {unwatchGroup, watchGroup} from '../system/orphan-reaper.js';
import {helperEnv, signalGroup} from '../system/process-group.js';
import {readRegular} from '../system/safe-read.js';

// Runs squeue/scontrol without ever blocking the caller: asynchronous, with a timeout (the clients themselves retry
// an unreachable controller for 9 to 18 s before giving up, measured on 22.05), and a failure becomes a sentence
// that says which controller did not answer.

export interface SlurmRun {
	/** The exit code; null when the command did not run to its end (not found, timed out). */
	readonly code: number | null;
	readonly stdout: string;
	readonly stderr: string;
	/** Why it did not run to its end; null when it did (whatever its exit code). */
	readonly failure: string | null;
}

export interface SlurmExecOptions {
	readonly env: NodeJS.ProcessEnv;
	readonly timeoutMs: number;
}

/** What a client may print before it is cut off (squeue of a whole cluster is a few MB). */
const MAX_OUTPUT = 64 * 1024 * 1024;

export function runSlurm(command: string, args: readonly string[], options: SlurmExecOptions): Promise<SlurmRun> {
	return new Promise(resolve => {
		// Its own process group, watched by the orphan reaper: a client waiting on a dead controller (9 to 18 s) must
		// not outlive a traintop killed with -9. (execFile would not do: it does not pass `detached` on to spawn.)
		const child = spawn(command, [...args], {env: helperEnv(options.env), detached: true});
		watchGroup(child.pid);
		let stdout = '';
		let stderr = '';
		let timedOut = false;
		let settled = false;
		const finish = (run: SlurmRun) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			unwatchGroup(child.pid);
			resolve(run);
		};
		let timer = setTimeout(() => {
			timedOut = true;
			signalGroup(child, 'SIGTERM');
			// A client that ignores SIGTERM must not hold the caller forever.
			timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 2000);
		}, options.timeoutMs);
		child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
			if (stdout.length < MAX_OUTPUT) stdout += chunk;
		});
		child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
			if (stderr.length < MAX_OUTPUT) stderr += chunk;
		});
		child.on('error', (error: NodeJS.ErrnoException) => {
			const failure =
				error.code === 'ENOENT' ? `${command} not found: not on a SLURM node` : `${command}: ${error.message}`;
			finish({code: null, stdout, stderr, failure});
		});
		child.on('close', (code, signal) => {
			if (code !== null && !timedOut) return finish({code, stdout, stderr, failure: null});
			const seconds = Math.round(options.timeoutMs / 100) / 10;
			const why = timedOut ? `no answer from ${command} in ${seconds} s` : `${command}: killed by ${signal}`;
			finish({code: null, stdout, stderr, failure: why});
		});
		// Nothing to write: without this, a client that reads stdin would wait on traintop's terminal.
		child.stdin.end();
	});
}

/**
 * `HOST:PORT` of the controller, from slurm.conf (SLURM_CONF, else /etc/slurm/slurm.conf, Debian's place):
 * the first SlurmctldHost (`vm(127.0.0.1)` → vm) and SlurmctldPort (default 6817, slurm.conf(5)). Only for
 * messages; 'slurmctld' when the file cannot be read (a configless node gets its config from the controller).
 */
export async function controllerAddress(env: NodeJS.ProcessEnv): Promise<string> {
	// Only a regular file, at most 1 MiB, opened without blocking: a FIFO there held this message (and the command
	// waiting on it) forever.
	const read = await readRegular(env.SLURM_CONF ?? '/etc/slurm/slurm.conf', CONFIG_MAX_BYTES, 'head', CONFIG_MAX_BYTES);
	if (read.status !== 'ok') return 'slurmctld';
	const conf = read.bytes.toString('utf8');
	const value = (key: string) => new RegExp(`^\\s*${key}\\s*=\\s*(\\S+)`, 'im').exec(conf)?.[1];
	const host = (value('SlurmctldHost') ?? value('ControlMachine'))?.replace(/\(.*\)$/, '');
	if (host === undefined) return 'slurmctld';
	return `${host}:${value('SlurmctldPort') ?? '6817'}`;
}

/** stderr lines that mean the controller did not answer, as the 22.05 clients print them (slurm_strerror). */
export function isControllerDown(stderr: string): boolean {
	return /Unable to contact slurm controller|Socket timed out|Zero Bytes were transmitted|Connection refused/i.test(
		stderr,
	);
}

/** The first non-empty line of a command's stderr (or stdout), for a message. */
export function firstLine(text: string): string {
	return (
		text
			.split('\n')
			.map(line => line.trim())
			.find(Boolean) ?? ''
	);
}

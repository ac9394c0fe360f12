import {execFile} from 'node:child_process';
import {readFile} from 'node:fs/promises';
import {helperEnv} from '../system/process-group.js';

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

export function runSlurm(command: string, args: readonly string[], options: SlurmExecOptions): Promise<SlurmRun> {
	return new Promise(resolve => {
		const child = execFile(
			command,
			[...args],
			{env: helperEnv(options.env), timeout: options.timeoutMs, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024},
			(error, stdout, stderr) => {
				if (!error) return resolve({code: 0, stdout, stderr, failure: null});
				const failed = error as NodeJS.ErrnoException & {killed?: boolean; signal?: string | null};
				if (failed.code === 'ENOENT')
					return resolve({code: null, stdout, stderr, failure: `${command} not found: not on a SLURM node`});
				if (typeof failed.code === 'number') return resolve({code: failed.code, stdout, stderr, failure: null});
				const seconds = Math.round(options.timeoutMs / 100) / 10;
				const why = failed.killed ? `no answer from ${command} in ${seconds} s` : `${command}: ${failed.message}`;
				resolve({code: null, stdout, stderr, failure: why});
			},
		);
		// Nothing to write: without this, a client that reads stdin would wait on traintop's terminal.
		child.stdin?.end();
	});
}

/**
 * `HOST:PORT` of the controller, from slurm.conf (SLURM_CONF, else /etc/slurm/slurm.conf, Debian's place):
 * the first SlurmctldHost (`vm(127.0.0.1)` → vm) and SlurmctldPort (default 6817, slurm.conf(5)). Only for
 * messages; 'slurmctld' when the file cannot be read (a configless node gets its config from the controller).
 */
export async function controllerAddress(env: NodeJS.ProcessEnv): Promise<string> {
	try {
		const conf = await readFile(env.SLURM_CONF ?? '/etc/slurm/slurm.conf', 'utf8');
		const value = (key: string) => new RegExp(`^\\s*${key}\\s*=\\s*(\\S+)`, 'im').exec(conf)?.[1];
		const host = (value('SlurmctldHost') ?? value('ControlMachine'))?.replace(/\(.*\)$/, '');
		if (host === undefined) return 'slurmctld';
		return `${host}:${value('SlurmctldPort') ?? '6817'}`;
	} catch {
		return 'slurmctld';
	}
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

// Test-side helpers for the fake nvidia-smi: its environment, its invocation log, and process liveness checks.

import {chmodSync, existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {delimiter, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const FAKE_DIR = fileURLToPath(new URL('.', import.meta.url));
export const FAKE_BIN = join(FAKE_DIR, 'nvidia-smi');

// A checkout (or an archive) may lose the executable bit; spawn through PATH needs it.
chmodSync(FAKE_BIN, 0o755);

export type Knobs = Record<string, string | undefined>;

/** The environment for a child that should find the fake as `nvidia-smi`: fake first on PATH, only these knobs set. */
export function fakeEnv(knobs: Knobs = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!key.startsWith('FAKE_NVSMI_')) env[key] = value;
	}
	env.PATH = [FAKE_DIR, process.env.PATH ?? ''].join(delimiter);
	for (const [key, value] of Object.entries(knobs)) {
		if (value !== undefined) env[key] = value;
	}
	return env;
}

const createdDirs: string[] = [];

export function tempDir(prefix = 'traintop-nvsmi-'): string {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	createdDirs.push(dir);
	return dir;
}

/** Removes every folder tempDir() made in this test file (call from afterAll). */
export function removeTempDirs(): void {
	for (const dir of createdDirs.splice(0)) rmSync(dir, {recursive: true, force: true});
}

/** One line of FAKE_NVSMI_LOG. */
export interface Invocation {
	readonly t: number;
	readonly pid: number;
	readonly ppid: number;
	readonly argv?: readonly string[];
	readonly role?: 'grandchild';
}

export function readInvocations(logPath: string): Invocation[] {
	if (!existsSync(logPath)) return [];
	return readFileSync(logPath, 'utf8')
		.split('\n')
		.filter(line => line.trim() !== '')
		.map(line => JSON.parse(line) as Invocation);
}

/** Invocations of the fake itself (not its helpers), optionally only those whose argv contains `argFragment`. */
export function fakeRuns(logPath: string, argFragment?: string): Invocation[] {
	return readInvocations(logPath).filter(
		entry =>
			entry.role === undefined && (argFragment === undefined || entry.argv?.some(arg => arg.includes(argFragment))),
	);
}

/**
 * True while `pid` is a running process. A zombie counts as dead: an orphan that exited waits for init to reap it,
 * and `kill(pid, 0)` would still succeed on it.
 */
export function isAlive(pid: number): boolean {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		// The state follows the parenthesised command name, which may itself contain spaces or parentheses.
		const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
		return state !== 'Z' && state !== 'X';
	} catch {
		if (process.platform === 'linux') return false;
	}
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Cleanup for tests that failed half-way: nothing of theirs may outlive them. */
export function killAll(pids: readonly number[]): void {
	for (const pid of pids) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
}

/** Polls `probe` until it returns something other than undefined/null/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
	probe: () => T | undefined | null | false,
	what: string,
	timeoutMs = 5_000,
	intervalMs = 10,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = probe();
		if (value !== undefined && value !== null && value !== false) return value;
		if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
		await new Promise(resolve => setTimeout(resolve, intervalMs));
	}
}

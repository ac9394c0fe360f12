import {type ChildProcess, spawn} from 'node:child_process';
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {until} from './until.js';

// Processes that write down every signal they receive (signal-recorder.py): the outsiders of the grouping tests and
// the ranks of the jobs they try to join. A recorder is found by the file it writes its pid to.

export const RECORDER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'signal-recorder.py');

export interface Recorder {
	readonly pid: number;
	/** The signals it has received so far, in order (`SIGUSR1`…). */
	received(): string[];
}

/** The recorder that writes to `log`, once it has written its pid (its handlers are installed by then). */
export async function recorderAt(log: string): Promise<Recorder> {
	const pid = await until(
		() => (existsSync(`${log}.pid`) ? Number(readFileSync(`${log}.pid`, 'utf8')) : 0),
		found => found > 0,
		`the recorder writing ${log} to start`,
		30_000,
	);
	return {
		pid,
		received: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
	};
}

/**
 * `setsid -f python3 signal-recorder.py LOG TAG` with `env` added: a process of the same user in a session of its own,
 * handed to PID 1 at once (-f forks, and the setsid that forked exits) — what `VAR=… setsid python3 victim.py &` makes.
 */
export async function startOutsider(log: string, env: Record<string, string>, tag = ''): Promise<Recorder> {
	const child = spawn('setsid', ['-f', 'python3', RECORDER, log, ...(tag ? [tag] : [])], {
		env: {...process.env, ...env},
		stdio: 'ignore',
	});
	child.unref();
	return recorderAt(log);
}

/** Ends the recorders (SIGKILL: they handle everything else), ignoring those already gone. */
export function killRecorders(recorders: readonly Recorder[]): void {
	for (const {pid} of recorders) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// gone
		}
	}
}

/**
 * Sends `ping` (a signal numbered above the one under test: Python runs handlers of signals pending together in number
 * order) and resolves with what the recorder received once the ping is among it: anything sent before is in by then.
 */
export async function receivedBefore(recorder: Recorder, ping: NodeJS.Signals = 'SIGUSR2'): Promise<string[]> {
	process.kill(recorder.pid, ping);
	return until(recorder.received, got => got.includes(ping), `${ping} to reach pid ${recorder.pid}`, 30_000);
}

/** A launcher's Python: starts one recorder per entry of RECORDER_RANKS (its log, argv tag and environment), waits. */
const LAUNCH = [
	'import json, os, subprocess, sys',
	'ranks = json.loads(os.environ.pop("RECORDER_RANKS"))',
	'children = [subprocess.Popen([sys.executable, os.environ["RECORDER"], r["log"], r["tag"]], env={**os.environ, **r["env"]}) for r in ranks]',
	'[c.wait() for c in children]',
].join('\n');

export interface RecorderJob {
	/** The launcher (`python3 -c …`): the ranks' parent. */
	readonly launcher: ChildProcess;
	readonly ranks: readonly Recorder[];
	stop(): void;
}

/** A launcher and its ranks, each rank a recorder with its own environment: a job proven by its launcher's tree. */
export async function startRecorderJob(
	ranks: readonly {log: string; env: Record<string, string>; tag?: string}[],
): Promise<RecorderJob> {
	const spec = ranks.map(r => ({log: r.log, env: r.env, tag: r.tag ?? ''}));
	const launcher = spawn('python3', ['-c', LAUNCH], {
		env: {...process.env, RECORDER, RECORDER_RANKS: JSON.stringify(spec)},
		stdio: 'ignore',
		detached: true,
	});
	const started = await Promise.all(ranks.map(r => recorderAt(r.log)));
	return {
		launcher,
		ranks: started,
		stop() {
			killRecorders(started);
			try {
				process.kill(-launcher.pid!, 'SIGKILL');
			} catch {
				// gone
			}
		},
	};
}

import {type ChildProcess, execFileSync, spawn} from 'node:child_process';
import {createReadStream} from 'node:fs';
import path from 'node:path';
import {createInterface} from 'node:readline';

// What starts a test's ranks, as torchrun's agent or a Python launcher does: one process above all of them, their
// parent. That is what proves they are one job (ranks/job-proof.ts); the test runner cannot stand in for it, since
// it is also traintop's parent, and traintop never takes its own ancestor for a job's launcher.
//
// The launcher is python3 reading one JSON request a line on stdin (a rank's argv, environment and two FIFOs for its
// stdout and stderr); it prints `started PID`, then `exited PID CODE SIGNAL` when that rank ends.

const LAUNCH = `
import json, os, signal, subprocess, sys, threading
running, lock = set(), threading.Lock()
def run(req):
    # O_RDWR never waits for the reader (Linux): the test opens its end in its own time, and EOF comes when the rank,
    # then the only writer, ends.
    out, err = os.open(req["out"], os.O_RDWR), os.open(req["err"], os.O_RDWR)
    child = subprocess.Popen(req["argv"], env=req["env"], stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    os.close(out); os.close(err)
    with lock: running.add(child.pid)
    print("started", child.pid, flush=True)
    code = child.wait()
    print("exited", child.pid, code if code >= 0 else "null", signal.Signals(-code).name if code < 0 else "null", flush=True)
    with lock:
        running.discard(child.pid)
        if sys.argv[1] == "exit-when-idle" and not running: os._exit(0)
for line in sys.stdin:
    threading.Thread(target=run, args=(json.loads(line),)).start()
`;

export interface Exit {
	readonly code: number | null;
	readonly signal: NodeJS.Signals | null;
}

export interface LaunchedRank {
	readonly pid: number;
	/** Its stdout's lines so far. */
	readonly lines: string[];
	stderr(): string;
	/** Resolves once it ended and its output is all read. */
	readonly exited: Promise<Exit>;
	running(): boolean;
	/** Sends a signal if it still runs. */
	kill(signal?: NodeJS.Signals): void;
	/** Called on each new line and when it ends. */
	onChange(listener: () => void): () => void;
}

export interface RankLauncher {
	readonly child: ChildProcess;
	/** Starts one rank under the launcher; resolves once it is started (not once it is ready: that is the rank's to say). */
	launch(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<LaunchedRank>;
	/** SIGKILL to every rank still running, then to the launcher. */
	stop(): Promise<void>;
}

/**
 * A launcher whose FIFOs live in `dir` (the test's temporary directory). `exitWhenIdle`: it exits once its last rank
 * has, as torchrun does when its workers end (so the job is seen to end); else it waits for more ranks to start.
 */
export function startRankLauncher(dir: string, {exitWhenIdle = false} = {}): RankLauncher {
	const mode = exitWhenIdle ? 'exit-when-idle' : 'stay';
	const child = spawn('python3', ['-u', '-c', LAUNCH, mode], {stdio: ['pipe', 'pipe', 'inherit']});
	const starting: ((pid: number) => void)[] = [];
	const exits = new Map<number, Exit>();
	const waiting = new Map<number, (exit: Exit) => void>();
	const ranks: LaunchedRank[] = [];
	createInterface({input: child.stdout!}).on('line', line => {
		const [word, pid, code, signal] = line.split(' ');
		if (word === 'started') starting.shift()?.(Number(pid));
		if (word !== 'exited') return;
		const exit = {
			code: code === 'null' ? null : Number(code),
			signal: signal === 'null' ? null : (signal as NodeJS.Signals),
		};
		exits.set(Number(pid), exit);
		waiting.get(Number(pid))?.(exit);
	});
	const exitOf = (pid: number) =>
		new Promise<Exit>(resolve => {
			const known = exits.get(pid);
			if (known) resolve(known);
			else waiting.set(pid, resolve);
		});

	async function launch(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<LaunchedRank> {
		const out = path.join(dir, `rank-${ranks.length}.out`);
		const err = `${out}.err`;
		execFileSync('mkfifo', [out, err]);
		const lines: string[] = [];
		const listeners = new Set<() => void>();
		const changed = () => {
			for (const listener of listeners) listener();
		};
		let stderr = '';
		let ended = false;
		// Opened before the rank starts: an open for reading waits (in libuv's pool) for the launcher's open, and would
		// wait for ever after the rank had come and gone.
		createReadStream(err).on('data', (chunk: Buffer | string) => (stderr += chunk.toString()));
		const stream = createReadStream(out);
		createInterface({input: stream}).on('line', line => {
			lines.push(line);
			changed();
		});
		const closed = new Promise<void>(resolve => stream.once('close', () => resolve()));
		const pid = await new Promise<number>(resolve => {
			starting.push(resolve);
			child.stdin!.write(`${JSON.stringify({argv, env, out, err})}\n`);
		});
		const exited = Promise.all([exitOf(pid), closed]).then(([exit]) => {
			ended = true;
			changed();
			return exit;
		});
		const rank: LaunchedRank = {
			pid,
			lines,
			stderr: () => stderr,
			exited,
			running: () => !ended,
			kill: (signal = 'SIGKILL') => {
				if (ended) return;
				try {
					process.kill(pid, signal);
				} catch {
					// gone
				}
			},
			onChange: listener => {
				listeners.add(listener);
				return () => listeners.delete(listener);
			},
		};
		ranks.push(rank);
		return rank;
	}

	return {
		child,
		launch,
		stop: async () => {
			for (const rank of ranks) rank.kill('SIGKILL');
			// Their ends as the launcher reports them and their output read to EOF, but not for ever: on a loaded machine
			// a FIFO's last read and close wait in libuv's pool of four threads behind every other rank's, and a cleanup
			// hook once timed out waiting (CI, 90 s). The ranks are SIGKILLed either way; the launcher goes next.
			let timer: NodeJS.Timeout | undefined;
			const bounded = new Promise<void>(resolve => {
				timer = setTimeout(resolve, 20_000);
			});
			await Promise.race([Promise.all(ranks.map(rank => rank.exited)), bounded]);
			clearTimeout(timer);
			if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
		},
	};
}

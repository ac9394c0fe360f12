import {type ChildProcess, spawn} from 'node:child_process';
import {type AgentCommand, type AgentMessage, parseAgentMessage} from '../agent/protocol.js';
import {printable} from '../format/printable.js';
import {readCappedLines} from '../system/capped-lines.js';
import {unwatchGroup, watchGroup} from '../system/orphan-reaper.js';
import {helperEnv} from '../system/process-group.js';

// One connection to agents: a child process (ssh host traintop agent, srun … traintop agent, or a local agent)
// whose stdout carries agent messages, one a line, and whose stdin takes commands. Through srun one stream
// carries the agents of every node of the job, so messages are handed on with their host, not tied to the stream.
// A line that is not a message is skipped and counted, never fatal; the stream never throws at its owner.

export interface StreamHandlers {
	onMessage(message: AgentMessage): void;
	/** A line that is not an agent message: its text (cut) and why. */
	onGarbage(line: string, why: string): void;
	/** The process ended (or never started): why, in words (exit code, signal, spawn error, stderr's last line). */
	onEnd(why: string): void;
}

/** The last stderr lines kept, to say why an agent ended (ssh's "Connection refused", a missing traintop). */
const STDERR_LINES = 5;

/**
 * The longest message taken from an agent. The largest real one is a snapshot after a change of its slow parts:
 * the demo job's (8 ranks, 50 checkpoints) is 27 KB, about 340 bytes a checkpoint and 1.2 KB a rank, so 16 MiB
 * holds some 48,000 checkpoints or 13,000 ranks on one node. Past it the line is not a message but a stream
 * without newlines (a broken agent, something else answering over ssh), which readline would grow until V8
 * refuses it ("Invalid string length") and the viewer dies: 16 MiB is also what one link may hold in memory.
 */
const MAX_MESSAGE_BYTES = 16 * 2 ** 20;
/** stderr is read for its last lines only (why an agent ended): ssh's and a shell's lines are short. */
const MAX_STDERR_LINE_BYTES = 64 * 1024;

export class AgentStream {
	readonly #child: ChildProcess;
	readonly #stderr: string[] = [];
	#ended = false;

	constructor(argv: readonly string[], handlers: StreamHandlers, env: NodeJS.ProcessEnv = process.env) {
		const [command, ...args] = argv;
		// detached: its own process group, so that ending it ends what it started (ssh, srun, a shell's children).
		this.#child = spawn(command ?? 'false', args, {
			stdio: ['pipe', 'pipe', 'pipe'],
			env: helperEnv(env),
			detached: true,
		});
		// A SIGKILLed viewer cannot close it: the reaper then sends its group SIGTERM (orphan-reaper.ts).
		watchGroup(this.#child.pid);
		const end = (why: string) => {
			if (this.#ended) return;
			this.#ended = true;
			handlers.onEnd(why);
		};
		this.#child.on('error', error => end(`${command} could not start: ${error.message}`));
		this.#child.stdin?.on('error', () => {});
		this.#child.on('exit', (code, signal) => {
			unwatchGroup(this.#child.pid);
			const how = signal ? `killed by ${signal}` : `exited ${code}`;
			const said = this.#stderr.at(-1);
			end(said ? `${how}: ${said}` : how);
		});
		// A broken or hostile agent is dropped, with why, and the Fleet reconnects it with backoff: nothing it sends
		// can grow without bound or reach a view unchecked.
		const drop = (why: string) => {
			this.kill();
			end(why);
		};
		readCappedLines(
			this.#child.stdout,
			MAX_MESSAGE_BYTES,
			line => {
				if (this.#ended || line.trim() === '') return;
				const parsed = parseAgentMessage(line);
				if (parsed.ok) handlers.onMessage(parsed.value);
				else if (parsed.invalid) drop(`sent ${parsed.error}: dropped the connection`);
				// A login banner, a shell's warning: said and counted, the messages around it still count.
				else handlers.onGarbage(printable(line.slice(0, 120)), parsed.error);
			},
			() => drop(`sent a line over ${MAX_MESSAGE_BYTES / 2 ** 20} MiB without a newline: dropped the connection`),
		);
		readCappedLines(
			this.#child.stderr,
			MAX_STDERR_LINE_BYTES,
			line => this.#heardOnStderr(line),
			() =>
				this.#heardOnStderr(
					`(a stderr line over ${MAX_STDERR_LINE_BYTES / 1024} KiB: the rest of its stderr is not read)`,
				),
		);
	}

	#heardOnStderr(line: string): void {
		const text = printable(line.trim().slice(0, 200));
		if (text === '') return;
		this.#stderr.push(text);
		if (this.#stderr.length > STDERR_LINES) this.#stderr.shift();
	}

	get pid(): number | null {
		return this.#child.pid ?? null;
	}

	get ended(): boolean {
		return this.#ended;
	}

	/** Writes one command line; false when the stream cannot take it (ended, stdin closed). */
	send(command: AgentCommand): boolean {
		const stdin = this.#child.stdin;
		if (this.#ended || !stdin || stdin.destroyed || !stdin.writable) return false;
		stdin.write(`${JSON.stringify(command)}\n`);
		return true;
	}

	/**
	 * Ends the connection: stdin closed first (an agent exits when it reads EOF; ssh and srun pass the EOF on), then
	 * SIGTERM to the process group after `graceMs` (at once without `waitForEof`; srun ends its step on it), SIGKILL
	 * after as long again. Resolves
	 * once the process is gone, so the caller can exit knowing nothing of it is left.
	 */
	async close(graceMs = 2000, waitForEof = true): Promise<void> {
		this.#child.stdin?.end();
		// Not waited for where nothing reads the EOF yet (an ssh still connecting): SIGTERM at once.
		if (waitForEof && (await this.#exitWithin(graceMs))) return;
		this.#signalGroup('SIGTERM');
		if (await this.#exitWithin(graceMs)) return;
		this.#signalGroup('SIGKILL');
		await this.#exitWithin(graceMs);
	}

	#exitWithin(ms: number): Promise<boolean> {
		if (this.#ended) return Promise.resolve(true);
		return new Promise(resolve => {
			const timer = setTimeout(() => resolve(false), ms);
			this.#child.once('exit', () => {
				clearTimeout(timer);
				resolve(true);
			});
		});
	}

	#signalGroup(signal: NodeJS.Signals): void {
		if (this.#ended || this.#child.pid === undefined) return;
		try {
			process.kill(-this.#child.pid, signal);
		} catch {
			// Already gone.
		}
	}

	/** Ends it without waiting (a hung agent, or the viewer's exit hook). */
	kill(): void {
		// SIGTERM first: srun ends its step on it (a SIGKILLed srun leaves the step's tasks running), ssh its
		// session; SIGKILL for what does not go.
		this.#signalGroup('SIGTERM');
		setTimeout(() => this.#signalGroup('SIGKILL'), 5000).unref();
	}
}

import {type ChildProcess, spawn} from 'node:child_process';
import {createInterface} from 'node:readline';
import {type AgentCommand, type AgentMessage, parseAgentMessage} from '../agent/protocol.js';
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
		const out = createInterface({input: this.#child.stdout!, crlfDelay: Infinity});
		out.on('line', line => {
			if (line.trim() === '') return;
			const parsed = parseAgentMessage(line);
			if (parsed.ok) handlers.onMessage(parsed.value);
			else handlers.onGarbage(line.slice(0, 120), parsed.error);
		});
		const err = createInterface({input: this.#child.stderr!, crlfDelay: Infinity});
		err.on('line', line => {
			if (line.trim() === '') return;
			this.#stderr.push(line.trim().slice(0, 200));
			if (this.#stderr.length > STDERR_LINES) this.#stderr.shift();
		});
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
	 * SIGTERM to the process group after `graceMs` (srun ends its step on it), SIGKILL after as long again. Resolves
	 * once the process is gone, so the caller can exit knowing nothing of it is left.
	 */
	async close(graceMs = 2000): Promise<void> {
		this.#child.stdin?.end();
		if (await this.#exitWithin(graceMs)) return;
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

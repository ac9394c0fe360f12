import type {Readable, Writable} from 'node:stream';
import type {LocalSession as Session} from '../session/session.js';
import {readCappedLines} from '../system/capped-lines.js';
import {CommandLines} from './agent-commands.js';
import {type AgentMessage, type HelloMessage, PROTOCOL} from './protocol.js';
import {SnapshotSender} from './snapshot-sender.js';

// `traintop agent`: one node's side of the agent protocol (protocol.ts). It says hello, then writes a snapshot
// message per Monitor snapshot and answers the commands it reads, until its connection ends: stdin at EOF (the
// viewer closed it, or ssh / srun did on its behalf), stdout broken (the viewer went away), or a signal. It never
// outlives its connection: an agent left behind on 64 nodes would be 64 orphans sampling for nobody.

export interface AgentOptions {
	/** RUN_DIR, as the hello names it (resolved); null without one. */
	readonly runDir: string | null;
	/** traintop's version, for the hello. */
	readonly version: string;
	readonly stdin: Readable;
	readonly stdout: Writable;
	/** Aborted on SIGTERM/SIGINT/SIGHUP. */
	readonly signal: AbortSignal;
}

/** What ended the agent. */
export type AgentEnd = 'stdin closed' | 'stdout closed' | 'signal' | typeof TOO_LONG;

const TOO_LONG = 'a line over 1 MiB without a newline on stdin';

/**
 * The longest command line read. A signal command names each rank by pid and start time (about 40 bytes): 1 MiB
 * holds 25,000 of them. A longer line is not a command; unread, it would grow until V8 refuses it and the agent
 * dies with a stack trace.
 */
const MAX_COMMAND_BYTES = 2 ** 20;

/** Runs the agent on the session until its connection ends; the session is closed (children stopped) on return. */
export async function runAgent(session: Session, options: AgentOptions): Promise<AgentEnd> {
	const {host, monitor} = session;
	const {stdin, stdout} = options;
	let stop: (why: AgentEnd) => void = () => {};
	const ended = new Promise<AgentEnd>(resolve => {
		stop = resolve;
	});

	let stdoutOpen = true;
	const write = (message: AgentMessage) => {
		if (stdoutOpen) stdout.write(`${JSON.stringify(message)}\n`);
	};
	// EPIPE (the reader is gone) or any other write error: nobody can hear this agent any more.
	const onStdoutError = () => {
		stdoutOpen = false;
		stop('stdout closed');
	};
	stdout.on('error', onStdoutError);

	const hello: HelloMessage = {
		kind: 'hello',
		protocol: PROTOCOL,
		host,
		version: options.version,
		pid: process.pid,
		clock: Date.now(),
		interval_ms: session.settings.interval * 1000,
		run_dir: options.runDir,
	};
	write(hello);

	const sender = new SnapshotSender(host);
	const unsubscribe = monitor.subscribe(snapshot => {
		const message = sender.next(snapshot, stdout.writableNeedDrain);
		if (message) write(message);
	});

	const commands = new CommandLines({
		host,
		readonly: session.readonly,
		latest: () => monitor.getSnapshot(),
		// Never forced: a rank without a handler for the signal is refused, as in the TUI.
		send: (signal, job, pids, expect) => session.actions.send(signal, job, pids, expect),
		// This node's /proc, for a rank of the latest scan only (detail-command.ts checks its identity first).
		detail: rank => session.actions.rankDetail(rank),
	});
	// Answered in the order read: each answer waits for the one before (a send is quick; the order is the contract).
	let answering: Promise<void> = Promise.resolve();
	readCappedLines(
		stdin,
		MAX_COMMAND_BYTES,
		line => {
			answering = answering.then(async () => {
				const answer = await commands.answer(line);
				if (answer) write(answer);
			});
		},
		// Not a viewer speaking the protocol: said, and the agent ends (its viewer, if any, reconnects).
		() => {
			write({kind: 'error', host, message: `${TOO_LONG}: not a command, the agent ends`});
			stop(TOO_LONG);
		},
	);
	const onStdinEnd = () => stop('stdin closed');
	stdin.on('end', onStdinEnd);
	stdin.on('close', onStdinEnd);
	stdin.on('error', onStdinEnd);

	if (options.signal.aborted) stop('signal');
	else options.signal.addEventListener('abort', () => stop('signal'), {once: true});

	session.start();
	try {
		return await ended;
	} finally {
		unsubscribe();
		stdin.off('end', onStdinEnd);
		stdin.off('close', onStdinEnd);
		stdin.off('error', onStdinEnd);
		stdin.pause();
		// Stops sampling, nvidia-smi and the run-dir watcher before the process goes. The stdout error listener stays:
		// a broken pipe may still report itself while the CLI flushes on its way out.
		await session.close();
	}
}

import {type AgentMessage, PROTOCOL, READS, type ReplyMessage, type SignalCommand} from '../agent/protocol.js';
import type {JobEvent, Snapshot} from '../core/types.js';
import {AgentStream} from './agent-stream.js';
import {ConnectSlots} from './connect-slots.js';
import {type AnswerTo, type Asked, type CommandBody, CommandsInFlight} from './commands-in-flight.js';
import {ATTEMPT_GRACE_MS, COALESCE_MS, type FleetConnection, type FleetOptions} from './fleet-options.js';
import {LinkEvents} from './link-events.js';
import {linkEndWhy} from './link-health.js';
import {NodeState, type NodeView} from './node-state.js';

export type {FleetConnection} from './fleet-options.js';

// Many nodes on one screen: the agents' connections, each node's latest snapshot and link state, and the way back
// to them (signal and detail commands, each waiting a bounded time for its answer: commands-in-flight.ts). A dead,
// hung or slow agent marks its own node stale or lost and is reconnected with backoff; nothing here waits on a
// node, so one bad node never stalls the others or the screen.

export interface FleetView {
	readonly time: number;
	readonly nodes: readonly NodeView[];
	/** The nodes' link changes (lost, stale, connected again), oldest first, bounded; absent: none kept. */
	readonly events?: readonly JobEvent[];
}

export type CommandOutcome =
	| {readonly kind: 'reply'; readonly reply: ReplyMessage}
	| {readonly kind: 'unreachable'; readonly why: string};

interface Link {
	readonly connection: FleetConnection;
	stream: AgentStream | null;
	startedAt: number;
	delayMs: number;
	retry: NodeJS.Timeout | null;
	/** The nodes heard on it (for a discovering connection, those it said hello as). */
	readonly nodes: Set<string>;
}

type SnapshotListener = (node: string, snapshot: Snapshot) => void;

export class Fleet {
	readonly #options: FleetOptions;
	readonly #now: () => number;
	readonly #links: Link[];
	readonly #nodes = new Map<string, NodeState>();
	readonly #snapshotListeners = new Set<SnapshotListener>();
	readonly #changeListeners = new Set<(view: FleetView) => void>();
	readonly #inFlight = new CommandsInFlight();
	#timer: NodeJS.Timeout | null = null;
	#emitTimer: NodeJS.Timeout | null = null;
	readonly #linkEvents = new LinkEvents();
	/** At most 32 connections being made at once; the others wait their turn, shown as connecting. */
	readonly #slots = new ConnectSlots<Link>();
	#closed = false;

	constructor(options: FleetOptions) {
		this.#options = options;
		this.#now = options.now ?? Date.now;
		this.#links = options.connections.map(connection => ({
			connection,
			stream: null,
			startedAt: 0,
			delayMs: options.backoff?.initialMs ?? 1000,
			retry: null,
			nodes: new Set(connection.nodes),
		}));
		for (const link of this.#links) for (const name of link.nodes) this.#node(name, link.connection.address);
	}

	start(): void {
		for (const link of this.#links) this.#connect(link);
		// Not unref()'d, nor is a reconnect's timer: a viewer lives until it is told to stop. With every link down
		// (one --hosts node, or the one srun step of --agents) these timers are all that is left in the event loop;
		// unref()'d, it emptied and Node ended the viewer (exit 13) before its final record.
		this.#timer = setInterval(() => this.#judge(), Math.min(this.#options.intervalMs, 1000));
	}

	/** Every node, in the order they were named (discovered ones after, as heard). */
	current(): FleetView {
		const now = this.#now();
		return {time: now, nodes: [...this.#nodes.values()].map(node => node.view(now)), events: this.#linkEvents.events};
	}

	/** One node's view now (its hello, snapshot, link), without building every other node's; null when unknown. */
	node(name: string): NodeView | null {
		return this.#nodes.get(name)?.view(this.#now()) ?? null;
	}

	/** Each node's snapshot as it arrives (per-host logs and lines want every one, not the coalesced view). */
	onSnapshot(listener: SnapshotListener): () => void {
		this.#snapshotListeners.add(listener);
		return () => this.#snapshotListeners.delete(listener);
	}

	/**
	 * The whole view, at most once per interval (up to 1 s) while snapshots come (64 nodes at 1 s send 64 a
	 * second: the screen is drawn once a second, as the one-node screen is, not 64 times; what it shows arrived under
	 * a second before), and at once when a link's state changes.
	 */
	subscribe(listener: (view: FleetView) => void): () => void {
		this.#changeListeners.add(listener);
		return () => this.#changeListeners.delete(listener);
	}

	/** Sends a signal command to `node`'s agent; the agent applies every guard there and replies per rank. */
	async send(node: string, command: Omit<SignalCommand, 'id' | 'host'>): Promise<CommandOutcome> {
		const asked = await this.ask(node, command, this.#options.replyTimeoutMs ?? 10_000);
		return asked.kind === 'answered'
			? {kind: 'reply', reply: asked.answer}
			: {kind: 'unreachable', why: `node ${node}: ${asked.why}`};
	}

	/**
	 * Writes a command to `node`'s agent and waits for its answer within `timeoutMs`; unreachable (the why without
	 * the node's name) when no agent is connected or none answers in time.
	 */
	ask<C extends CommandBody>(node: string, command: C, timeoutMs: number): Promise<Asked<AnswerTo<C>>> {
		const link = this.#links.find(candidate => candidate.nodes.has(node));
		const state = this.#nodes.get(node)?.state(this.#now());
		if (!link?.stream || state === 'lost' || state === 'connecting')
			return Promise.resolve({kind: 'unreachable', why: `no agent connected (${state ?? 'unknown'})`});
		return this.#inFlight.ask(command, timeoutMs, id => link.stream?.send({...command, id, host: node}) ?? false);
	}

	/** Ends every connection (stdin closed: the agents exit; then signals), and every retry; resolves when all are gone. */
	async close(): Promise<void> {
		this.#closed = true;
		this.#slots.clear();
		if (this.#timer) clearInterval(this.#timer);
		if (this.#emitTimer) clearTimeout(this.#emitTimer);
		this.#inFlight.abandon('traintop is closing');
		for (const link of this.#links) if (link.retry) clearTimeout(link.retry);
		// A connected agent exits on its stdin's EOF; one still connecting (an ssh in its handshake, an agent not
		// yet started) may not read it for seconds: ended at once.
		await Promise.all(
			this.#links.map(link =>
				this.#slots.making(link) ? link.stream?.close(ATTEMPT_GRACE_MS, false) : link.stream?.close(),
			),
		);
	}

	/** Kills every agent connection at once (from a process 'exit' hook, where nothing can wait). */
	killNow(): void {
		for (const link of this.#links) link.stream?.kill();
	}

	#node(name: string, address?: string): NodeState {
		let node = this.#nodes.get(name);
		if (!node) {
			node = new NodeState(name, this.#options.intervalMs, address ?? null);
			this.#nodes.set(name, node);
		}
		return node;
	}

	#connect(link: Link): void {
		if (this.#closed) return;
		link.retry = null;
		for (const name of link.nodes) this.#node(name).connecting();
		if (this.#slots.take(link)) this.#startStream(link);
	}

	/** `link` said hello or ended: its connection slot goes to the next waiting link. */
	#slotDone(link: Link): void {
		const next = this.#slots.done(link);
		if (next && !this.#closed) this.#startStream(next);
	}

	#startStream(link: Link): void {
		link.startedAt = this.#now();
		const stream = new AgentStream(
			link.connection.argv,
			{
				// Lines still buffered from a stream the link has left (a hello refused, a hung link killed) are not read:
				// an agent of an unknown protocol's snapshot was shown after its node was said lost.
				onMessage: message => {
					if (link.stream === stream) this.#message(link, message);
				},
				onGarbage: (line, why) => {
					if (link.stream !== stream) return;
					for (const name of this.#namesOf(link)) this.#node(name).garbage(`${why}: ${line}`);
				},
				onEnd: why => this.#ended(link, stream, why),
			},
			link.connection.env,
		);
		link.stream = stream;
		this.#judge();
	}

	/** A single-node connection's messages are that node's whatever host they name (an ssh alias vs hostname). */
	#nodeFor(link: Link, host: string): string {
		if (link.connection.nodes.length === 1) return link.connection.nodes[0]!;
		if (!link.nodes.has(host)) link.nodes.add(host);
		return host;
	}

	#namesOf(link: Link): string[] {
		return [...link.nodes];
	}

	#message(link: Link, message: AgentMessage): void {
		const now = this.#now();
		const name = this.#nodeFor(link, message.host);
		const node = this.#node(name);
		switch (message.kind) {
			case 'hello':
				if (!READS.has(message.protocol)) {
					// Its snapshots could be misread: the node is lost until that traintop is updated (the retry
					// backs off to its longest wait, in case it is being updated now).
					const why = `speaks agent protocol ${message.protocol} (traintop ${message.version}), this traintop speaks ${PROTOCOL}: update traintop on ${name}`;
					link.delayMs = this.#options.backoff?.maxMs ?? 30_000;
					link.stream?.kill();
					if (link.stream) this.#ended(link, link.stream, why);
					return;
				}
				node.hello(message, now);
				link.delayMs = this.#options.backoff?.initialMs ?? 1000;
				this.#slotDone(link);
				break;
			case 'snapshot': {
				const snapshot = node.snapshot(message, now);
				for (const listener of this.#snapshotListeners) listener(name, snapshot);
				break;
			}
			case 'reply':
			case 'detail':
				node.heard(now);
				this.#inFlight.answered(message);
				break;
			case 'error':
				node.heard(now, `its agent said: ${message.message}`);
				break;
		}
		this.#scheduleEmit();
	}

	#ended(link: Link, stream: AgentStream, why: string): void {
		if (link.stream !== stream) return;
		link.stream = null;
		// Ended by close(): the agents were asked to go, nothing was lost.
		if (this.#closed) return;
		this.#slotDone(link);
		for (const name of link.nodes) this.#node(name).lost(`agent ${why}`);
		// Reconnected with backoff, however often it drops: a lost link is news for the views, never the end.
		const delay = link.delayMs;
		link.delayMs = Math.min(delay * 2, this.#options.backoff?.maxMs ?? 30_000);
		link.retry = setTimeout(() => this.#connect(link), delay);
		this.#judge();
	}

	/** On a clock: ends connections that hung, and tells the views when a link's state changed. */
	#judge(): void {
		const now = this.#now();
		const limits = {
			hungAfterMs: this.#options.hungAfterMs ?? Math.max(15_000, 10 * this.#options.intervalMs),
			helloTimeoutMs: this.#options.helloTimeoutMs ?? 30_000,
		};
		for (const link of this.#links) {
			const stream = link.stream;
			if (!stream) continue;
			const why = linkEndWhy(
				[...link.nodes].map(name => this.#node(name)),
				link.startedAt,
				now,
				limits,
			);
			if (why === null) continue;
			stream.kill();
			this.#ended(link, stream, why);
		}
		if (this.#linkEvents.changed([...this.#nodes.values()], now)) this.#emit();
	}

	#scheduleEmit(): void {
		if (this.#emitTimer !== null) return;
		this.#emitTimer = setTimeout(() => {
			this.#emitTimer = null;
			this.#emit();
		}, COALESCE_MS(this.#options.intervalMs));
		this.#emitTimer.unref?.();
	}

	#emit(): void {
		const view = this.current();
		for (const listener of this.#changeListeners) listener(view);
	}
}

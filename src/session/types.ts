import type {DeclaredWatch} from '../cluster/declared-watch.js';
import type {Settings} from '../config/schema.js';
import type {Monitor} from '../core/monitor.js';
import type {Snapshot} from '../core/types.js';
import type {Fleet} from '../fleet/fleet.js';
import type {MemoryLogRecorder} from '../memlog/recorder.js';
import type {SessionActions} from './actions.js';

// What the views receive of a session (session.ts builds it): one node or many, each a source of snapshots.

/** What every session is, however many nodes it watches. */
export interface SessionNodes {
	readonly settings: Settings;
	/** --readonly: no action may be taken from any view. */
	readonly readonly: boolean;
	/** Each node's snapshot as it arrives, with the node's name (the one-node session: its host). */
	onSnapshot(listener: (node: string, snapshot: Snapshot) => void): () => void;
	/** Each node's memory log by node name: its path, its trouble (observable), a record per log interval. */
	readonly recorders: ReadonlyMap<string, MemoryLogRecorder>;
	/** Starts sampling (or connecting); the first snapshot comes at once. */
	start(): void;
	/** Stops sampling, writes the last window to each log, ends the readers, watchers and agent links. */
	close(): Promise<void>;
	/** Ends child processes at once (from a process 'exit' hook, where nothing can be awaited). */
	killNow(): void;
}

/** This machine as the one node: its Monitor's snapshots on a clock, its log, and the actions taken here. */
export interface LocalSession extends SessionNodes {
	readonly kind: 'local';
	readonly host: string;
	/** Snapshots on a clock (subscribe/getSnapshot/getHistory). */
	readonly monitor: Monitor;
	/** The node's memory log (recorders' only one). */
	readonly recorder: MemoryLogRecorder;
	readonly actions: SessionActions;
}

/** Nodes reached through their agents (ssh, a local child, the scheduler's one start over its job's nodes). */
export interface AgentsSession extends SessionNodes {
	readonly kind: 'agents';
	/** The agent links: each node's latest snapshot and link state, and the way back to its agent. */
	readonly fleet: Fleet;
	/** Where the node logs go (with `<host>` in place of the node's name); null with --no-log. */
	readonly logPattern: string | null;
	/** Where each node differs from its cluster.yaml declaration (none without --cluster). */
	readonly declared: DeclaredWatch;
}

export type Session = LocalSession | AgentsSession;

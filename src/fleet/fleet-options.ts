// How the Fleet runs its links: the agents to run and its timings (how long to wait for a hello, a reply, a
// silent link; how fast to reconnect; how often to tell the views).

/** One agent process to run: a node through ssh or locally, or every node of a scheduler's job through one start of its own. */
export interface FleetConnection {
	/** The nodes it carries, by name. Empty: whatever hosts its agents say hello as (srun over a job's nodes). */
	readonly nodes: readonly string[];
	/** Where its one node is reached (the ssh host, `local`), shown beside the name; absent: the name says it. */
	readonly address?: string;
	readonly argv: readonly string[];
	readonly env?: NodeJS.ProcessEnv;
}

export interface FleetOptions {
	readonly connections: readonly FleetConnection[];
	/** The sampling interval asked of the agents: how often to judge the links, and their default interval. */
	readonly intervalMs: number;
	readonly now?: () => number;
	/** First reconnect delay, doubled each time up to maxMs; back to the first after a hello. */
	readonly backoff?: {readonly initialMs: number; readonly maxMs: number};
	/** A connection silent this long is ended and made again (a hung agent or a dead link ssh has not noticed). */
	readonly hungAfterMs?: number;
	/** A connection without a hello this long is ended and made again (an ssh that hangs on connect). */
	readonly helloTimeoutMs?: number;
	/** How long a signal command waits for its reply. */
	readonly replyTimeoutMs?: number;
}

/** On close, how long a connection still being made has after SIGTERM before SIGKILL (srun ends its step on TERM). */
export const ATTEMPT_GRACE_MS = 1000;

/** How long snapshots are gathered into one view: the sampling interval, within 0.1–1 s. */
export const COALESCE_MS = (intervalMs: number) => Math.min(1000, Math.max(100, intervalMs));

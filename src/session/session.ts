import type {AgentsSession, LocalSession, Session} from './types.js';
import {type AgentNodesOptions, openAgentNodes} from './agent-nodes.js';
import {type LocalNodeOptions, openLocalNode} from './local-node.js';

export type {AgentsSession, LocalSession, Session} from './types.js';

// The one composition root, for one node and many. A node is a source of snapshots: this machine's own sampler
// (the ranks, the host's memory and GPUs, the run dir, the scheduler's job), or an agent link to another machine's. Each
// node's snapshots go to its own memory log; the TUI and the headless view receive the session and only render or
// print it; the command that runs them owns the process (signals, exit, final words).

export type SessionOptions = LocalNodeOptions | AgentNodesOptions;
/**
 * Builds the session: this machine's node (a RankSelector and maybe a RUN_DIR), or the agents' (their
 * connections). The memory logs known up front are opened first, so an unwritable path is a plain usage error
 * (exit 2) before anything is started or the screen changes.
 */
export function openSession(options: LocalNodeOptions): Promise<LocalSession>;
export function openSession(options: AgentNodesOptions): Promise<AgentsSession>;
export function openSession(options: SessionOptions): Promise<Session>;
export async function openSession(options: SessionOptions): Promise<Session> {
	return 'connections' in options ? openAgentNodes(options) : openLocalNode(options);
}

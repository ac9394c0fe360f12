import {type AgentMessage, parseAgentMessage, type SnapshotMessage} from '../../src/agent/protocol.js';
import {fullSnapshot} from '../../src/agent/wire-snapshot.js';
import type {Snapshot} from '../../src/core/types.js';
import type {CliRun} from './run-cli.js';

/** Every complete stdout line of a running agent, each of which must be an agent message (else the test fails). */
export function agentMessages(agent: CliRun): AgentMessage[] {
	return agent
		.stdout()
		.split('\n')
		.slice(0, -1)
		.map(line => {
			const parsed = parseAgentMessage(line);
			if (!parsed.ok) throw new Error(`not an agent message (${parsed.error}): ${line}`);
			return parsed.value;
		});
}

/** A running agent's snapshots so far, each made whole as a viewer makes it: an index left out is the one before. */
export function agentSnapshots(agent: CliRun): Snapshot[] {
	const full: Snapshot[] = [];
	for (const m of agentMessages(agent).filter((m): m is SnapshotMessage => m.kind === 'snapshot'))
		full.push(fullSnapshot(m.snapshot, full.at(-1) ?? null, {recentAlerts: [], recentEvents: []}));
	return full;
}

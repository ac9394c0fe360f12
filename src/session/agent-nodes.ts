import type {DeclaredNode} from '../cluster/declared-vs-seen.js';
import {DeclaredWatch} from '../cluster/declared-watch.js';
import type {Settings} from '../config/schema.js';
import {errorMessage} from '../core/errors.js';
import {MemoryLogRecorder} from '../memlog/recorder.js';
import {Fleet, type FleetConnection} from '../fleet/fleet.js';
import {hostLogPathFrom, hostLogPattern} from './log-path.js';
import type {AgentsSession} from './types.js';

// The nodes reached through their agents: the Fleet of agent links and one memory log per node, built once.

export interface AgentNodesOptions {
	readonly settings: Settings;
	readonly runDir: string | null;
	/** The agents to run (commands/fleet-connections.ts): one per node, or one srun step over a job's nodes. */
	readonly connections: readonly FleetConnection[];
	/** cluster.yaml's nodes by name (--cluster); absent or empty: nothing declared. */
	readonly declared?: ReadonlyMap<string, DeclaredNode>;
}

/** Builds the agents' session; the logs of the nodes named up front are opened first (an unwritable path fails here). */
export async function openAgentNodes(options: AgentNodesOptions): Promise<AgentsSession> {
	const {settings, runDir} = options;
	const fleet = new Fleet({connections: options.connections, intervalMs: settings.interval * 1000});
	const declared = new DeclaredWatch(fleet, options.declared ?? new Map());
	const recorders = new Map<string, MemoryLogRecorder>();
	const open = (node: string, logPath: string | null) => {
		const recorder = new MemoryLogRecorder({
			logPath,
			logIntervalMs: settings.logInterval * 1000,
			sampleIntervalMs: settings.interval * 1000,
			// Every node's agent gets this --gpu-threshold (commands/fleet-connections.ts); a node's own GPU lines
			// (--gpu-thresholds, its cluster.yaml reserve factors) come in its snapshots and go in its own log.
			gpuThreshold: settings.gpuThreshold,
		});
		recorders.set(node, recorder);
		return recorder;
	};
	// The nodes named up front get their logs now: an unwritable path is a usage error before anything starts.
	for (const connection of options.connections)
		for (const node of connection.nodes) open(node, hostLogPathFrom(settings, runDir, node));
	const off = fleet.onSnapshot((node, snapshot) => {
		let recorder = recorders.get(node);
		if (!recorder) {
			// A node heard of only now (srun over a job's nodes): its log cannot fail the start any more, so a
			// path that cannot be written leaves that node without a log and says why.
			const logPath = hostLogPathFrom(settings, runDir, node);
			try {
				recorder = open(node, logPath);
			} catch (error) {
				recorder = open(node, null);
				recorder.trouble.set(`cannot write the memory log ${logPath}: ${errorMessage(error)}`);
			}
		}
		recorder.add(snapshot);
	});
	let closed = false;
	return {
		kind: 'agents',
		settings,
		readonly: settings.readonly,
		onSnapshot: listener => fleet.onSnapshot(listener),
		fleet,
		recorders,
		logPattern: hostLogPattern(settings, runDir),
		declared,
		start: () => fleet.start(),
		close: async () => {
			if (closed) return;
			closed = true;
			off();
			declared.close();
			await fleet.close();
			for (const recorder of recorders.values()) recorder.close();
		},
		killNow: () => fleet.killNow(),
	};
}

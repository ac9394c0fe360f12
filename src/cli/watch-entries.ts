import {UsageError} from '../core/errors.js';
import type {SettledCall} from './call.js';
import {prepareReaper} from '../system/orphan-reaper.js';
import {manyNodesHeap, monitorHeap} from './monitor-heap.js';

// The commands that watch for as long as the job runs (the monitor, many nodes, the demo, the agent): each sets up
// the monitor's heap before its modules load, and imports them only when chosen.

export async function monitorEntry({cli, settings, given, json, selector, exitNow}: SettledCall): Promise<number> {
	// A first word within a typo of a command (`sginal`) is refused, not waited for as a RUN_DIR.
	const {checkMistypedCommand} = await import('./suggest.js');
	checkMistypedCommand(cli.input[0]);
	monitorHeap();
	// Before the first child (a scheduler's client, nvidia-smi): each is guarded from its first moment.
	prepareReaper();
	// One node or many (--hosts, --cluster, a scheduler's job flag with --agents): the monitor's session has the nodes.
	const {wantsAgents} = await import('../commands/fleet-connections.js');
	if (wantsAgents(cli.flags)) manyNodesHeap();
	const {runMonitor} = await import('../commands/monitor.js');
	return runMonitor({input: cli.input, flags: cli.flags, settings, given, json, selector, exitNow});
}

export async function demoEntry({cli, args, settings, json, exitNow}: SettledCall): Promise<number> {
	if (args.length > 0) throw new UsageError(`demo takes no arguments (got ${args.join(' ')})`);
	monitorHeap();
	prepareReaper();
	const {runDemoCommand} = await import('../commands/demo.js');
	return runDemoCommand({settings, flags: cli.flags, json, stderr: process.stderr, exitNow});
}

export async function agentEntry({cli, args, settings, selector, exitNow}: SettledCall): Promise<number> {
	if (args.length > 1) throw new UsageError(`agent takes at most one RUN_DIR (got ${args.join(' ')})`);
	monitorHeap();
	prepareReaper();
	const {runAgentCommand} = await import('../commands/agent.js');
	return runAgentCommand({input: args, flags: cli.flags, settings, selector, exitNow});
}

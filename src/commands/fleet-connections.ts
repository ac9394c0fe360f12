import {hostname} from 'node:os';
import path from 'node:path';
import type {DeclaredNode} from '../cluster/declared-vs-seen.js';
import {formatGpuThresholds} from '../config/gpu-thresholds.js';
import {DEFAULT_SETTINGS, type Settings, type SettingsInput} from '../config/schema.js';
import {UsageError} from '../core/errors.js';
import type {FleetConnection} from '../fleet/fleet.js';
import {type AgentArgs, DEFAULT_SSH_COMMAND, localConnection, sshConnection} from '../fleet/transports.js';
import {flagName} from '../config/options.js';
import {jobFlagGiven} from '../scheduler/registry.js';

// From the command line to the agents to run: `--hosts a,user@b,local` (ssh, or a local child), each agent asked
// to watch what this traintop would (the same RUN_DIR, interval, thresholds and selection). cluster.yaml's nodes
// come through the same shape (a name, a transport, an ssh user and host).

export interface NodeTarget {
	readonly name: string;
	readonly transport: 'local' | 'ssh';
	readonly host: string;
	readonly user: string | null;
	/** This node's GPU thresholds by uuid (cluster.yaml's reserve factors, the user's own); else --gpu-thresholds'. */
	readonly gpuThresholds?: ReadonlyMap<string, number>;
	/** What cluster.yaml says the node is, for the view to compare with what its agent sees. */
	readonly declared?: DeclaredNode;
}

/** `--hosts a,user@b,local`: each entry a node; `local` (or this machine's name) runs its agent here. */
export function nodesFromHosts(text: string): NodeTarget[] {
	const entries = text.split(',').map(entry => entry.trim());
	if (entries.some(entry => entry === ''))
		throw new UsageError(`--hosts: an empty entry in "${text}" (a comma-separated list of [user@]host)`);
	const nodes = entries.map((entry): NodeTarget => {
		const at = entry.lastIndexOf('@');
		const user = at > 0 ? entry.slice(0, at) : null;
		const host = at > 0 ? entry.slice(at + 1) : entry;
		if (!/^[A-Za-z0-9._:[\]-]+$/.test(host))
			throw new UsageError(`--hosts: "${entry}" is not [user@]host (a host name or address)`);
		if (host === 'local') return {name: hostname().split('.')[0] ?? 'local', transport: 'local', host, user: null};
		return {name: host, transport: 'ssh', host, user};
	});
	const seen = new Set<string>();
	for (const node of nodes) {
		if (seen.has(node.name)) throw new UsageError(`--hosts: ${node.name} is listed twice`);
		seen.add(node.name);
	}
	return nodes;
}

/** What every agent is asked, and the GPU thresholds for nodes without their own. */
export interface AgentPlan extends AgentArgs {
	readonly gpuThresholds: ReadonlyMap<string, number>;
}

/** Flags passed on to every agent when given here: what to watch and how to judge it. */
const PASSED_ON = ['match', 'stallAfter', 'keep', 'poll', 'ranksInterval', 'gpuProcessInterval', 'nvidiaSmi'] as const;

const kebab = (name: string) => name.replace(/[A-Z]/g, c => `-${c.toLowerCase()}`);

/** The agents' arguments: RUN_DIR (absolute: the nodes share the path, not our working directory), the settings. */
export function agentArgs(
	settings: Settings,
	flags: Readonly<Record<string, unknown>>,
	runDir: string | null,
): AgentPlan {
	const args: string[] = [];
	if (runDir !== null) args.push(path.resolve(runDir));
	args.push('--interval', String(settings.interval));
	args.push('--ram-threshold', String(settings.ramThreshold));
	args.push('--gpu-threshold', String(settings.gpuThreshold));
	args.push('--swap-threshold', String(settings.swapThreshold));
	args.push('--warn-margin', String(settings.warnMargin));
	for (const name of PASSED_ON) {
		const value = flags[name];
		if (typeof value === 'string' && value !== '') args.push(`--${kebab(name)}`, value);
	}
	// Each node judges its jobs' readiness by what the user said here (a config file's too, not only flags).
	if (settings.grace !== null) args.push('--grace', String(settings.grace));
	if (settings.maxWorkAtRisk !== null) args.push('--max-work-at-risk', String(settings.maxWorkAtRisk));
	// Each node judges its jobs' progress by the same window, files and NCCL address.
	if (settings.hangAfter !== DEFAULT_SETTINGS.hangAfter) args.push('--hang-after', String(settings.hangAfter));
	if (settings.progressFile !== null) args.push('--progress-file', path.resolve(settings.progressFile));
	if (settings.ncclRas !== DEFAULT_SETTINGS.ncclRas) args.push('--nccl-ras', settings.ncclRas);
	if (settings.readonly) args.push('--readonly');
	// Per node: a cluster.yaml node's own GPUs' thresholds replace these (connectionsFor).
	return {args, gpuThresholds: settings.gpuThresholds};
}

export function connectionsFor(
	nodes: readonly NodeTarget[],
	agent: AgentPlan,
	options: {readonly sshCommand: string | null; readonly self: readonly string[]},
): FleetConnection[] {
	const ssh = options.sshCommand ?? DEFAULT_SSH_COMMAND;
	return nodes.map(node => {
		const thresholds = node.gpuThresholds ?? agent.gpuThresholds;
		const own = thresholds.size > 0 ? ['--gpu-thresholds', formatGpuThresholds(thresholds)] : [];
		const args = {args: [...agent.args, ...own]};
		return node.transport === 'local'
			? localConnection(node.name, options.self, args)
			: sshConnection(node.name, {host: node.host, user: node.user}, ssh, args);
	});
}

/** Many nodes, each through its `traintop agent`: --hosts, --cluster, or a scheduler's job flag with --agents. */
export function wantsAgents(flags: Readonly<Record<string, unknown>>): boolean {
	return (
		flags.hosts !== undefined || flags.cluster !== undefined || (Boolean(flags.agents) && jobFlagGiven(flags) !== null)
	);
}

/** `--ssh-command`, else TRAINTOP_SSH_COMMAND, else the default (fleet/transports.ts). */
function sshCommandFrom(flags: Readonly<Record<string, unknown>>): string | null {
	const flag = flags.sshCommand;
	if (typeof flag === 'string') {
		if (flag.trim() === '') throw new UsageError('--ssh-command: empty (give a command, e.g. "ssh -p 2222")');
		return flag;
	}
	const env = process.env.TRAINTOP_SSH_COMMAND;
	return env && env.trim() !== '' ? env : null;
}

/**
 * The nodes to watch: `--hosts`, or a cluster.yaml's nodes (`--cluster`), not both. A cluster node's GPUs get their
 * reserve factor as threshold (cluster/gpu-thresholds.ts) unless the user set one (`given`: theirs, not defaults).
 */
export async function nodesFromFlags(
	flags: Readonly<Record<string, unknown>>,
	given: Pick<SettingsInput, 'gpuThreshold' | 'gpuThresholds'>,
): Promise<NodeTarget[]> {
	if (flags.hosts !== undefined && flags.cluster !== undefined)
		throw new UsageError('--hosts and --cluster cannot be used together (a cluster.yaml lists its own nodes)');
	if (typeof flags.hosts === 'string') return nodesFromHosts(flags.hosts);
	if (typeof flags.cluster !== 'string' || flags.cluster === '') throw new UsageError('--cluster needs a FILE');
	const {loadClusterFile} = await import('../cluster/cluster-config.js');
	const {clusterGpuThresholds} = await import('../cluster/gpu-thresholds.js');
	const {nodes} = await loadClusterFile(flags.cluster);
	return nodes.map(declared => {
		const {node} = declared;
		return {
			name: node.name,
			transport: node.transport,
			host: node.host,
			user: node.user,
			gpuThresholds: clusterGpuThresholds(node, given),
			declared,
		};
	});
}

/** The agents to run, and what cluster.yaml says each node is (by name; empty without --cluster). */
export interface FleetPlan {
	readonly connections: FleetConnection[];
	readonly declared: ReadonlyMap<string, DeclaredNode>;
}

/**
 * The agents to run for these flags: one per node of `--hosts` or `--cluster` (ssh, or a child for `local`), or one
 * connection the scheduler starts over the nodes of the job its flag names. `given` is what the user set (not defaults).
 */
export async function fleetPlan(
	flags: Readonly<Record<string, unknown>>,
	given: Pick<SettingsInput, 'gpuThreshold' | 'gpuThresholds'>,
	settings: Settings,
	runDir: string | null,
): Promise<FleetPlan> {
	const plan = agentArgs(settings, flags, runDir);
	const flagged = flags.hosts === undefined && flags.cluster === undefined ? jobFlagGiven(flags) : null;
	if (flagged !== null) {
		// The scheduler's own transport over the job's nodes, each agent following the job (its flag passed on).
		const {entry, flag, value: jobId} = flagged;
		const agents = entry.agents;
		if (!agents) throw new UsageError(`${flagName(flag)}: ${entry.name} does not start agents on a job's nodes`);
		const nodes = await agents.nodes(jobId);
		const own = plan.gpuThresholds.size > 0 ? ['--gpu-thresholds', formatGpuThresholds(plan.gpuThresholds)] : [];
		const args = [...plan.args, flagName(flag), jobId, ...own];
		return {
			connections: [agents.connection(jobId, nodes, {args})],
			declared: new Map(),
		};
	}
	const nodes = await nodesFromFlags(flags, given);
	// This same traintop, for nodes whose agent runs here (`local`).
	const self = [process.execPath, process.argv[1] ?? 'traintop'];
	return {
		connections: connectionsFor(nodes, plan, {sshCommand: sshCommandFrom(flags), self}),
		declared: new Map(nodes.flatMap(node => (node.declared ? [[node.name, node.declared] as const] : []))),
	};
}

/** fleetPlan's agents alone: what `traintop signal` across nodes needs. */
export async function fleetConnections(...args: Parameters<typeof fleetPlan>): Promise<FleetConnection[]> {
	return (await fleetPlan(...args)).connections;
}

import {existsSync} from 'node:fs';
import path from 'node:path';
import type {DeclaredNode} from '../cluster/declared-vs-seen.js';
import type {Settings, SettingsInput} from '../config/schema.js';
import {EXIT, UsageError} from '../core/errors.js';
import {type FleetSession, openFleetSession} from '../fleet/fleet-session.js';
import {existingRunDir} from './checkpoints.js';
import {formatGpuThresholds} from '../config/gpu-thresholds.js';
import type {FleetConnection} from '../fleet/fleet.js';
import {srunConnection} from '../slurm/agent-transport.js';
import {slurmJobNodes} from '../slurm/job-nodes.js';
import {agentArgs, connectionsFor, type NodeTarget, nodesFromHosts} from './fleet-connections.js';
import {stopOnSignals} from './stop-signals.js';

// traintop over many nodes: a `traintop agent` per node (ssh, or a local child), one view of them all. The command
// owns the process around the fleet session: signals, the exit hook (no agent connection may outlive traintop).

export interface FleetCommandOptions {
	readonly flags: Readonly<Record<string, unknown>>;
	readonly settings: Settings;
	readonly json: boolean;
	/** RUN_DIR as given (runDirOf resolves it). */
	readonly runDir: string | null;
	/** The agents to run: fleetPlan (--hosts, --cluster, --slurm-job with agents). */
	readonly connections: readonly FleetConnection[];
	/** cluster.yaml's nodes by name, to compare with what their agents see (fleetPlan). */
	readonly declared: ReadonlyMap<string, DeclaredNode>;
	readonly exitNow: () => void;
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

/** RUN_DIR as the one-node monitor takes it: it may not exist yet (the job makes it); something else there is an error. */
export function runDirOf(input: readonly string[]): string | null {
	if (input.length > 1) throw new UsageError(`expected at most one RUN_DIR, got ${input.length}: ${input.join(' ')}`);
	const given = input[0] ?? null;
	return given === null ? null : existsSync(given) ? existingRunDir(given) : path.resolve(given);
}

/** The agents to run, and what cluster.yaml says each node is (by name; empty without --cluster). */
export interface FleetPlan {
	readonly connections: FleetConnection[];
	readonly declared: ReadonlyMap<string, DeclaredNode>;
}

/**
 * The agents to run for these flags: one per node of `--hosts` or `--cluster` (ssh, or a child for `local`), or one
 * `srun --overlap` step over the nodes of `--slurm-job J`. `given` is what the user set (not defaults).
 */
export async function fleetPlan(
	flags: Readonly<Record<string, unknown>>,
	given: Pick<SettingsInput, 'gpuThreshold' | 'gpuThresholds'>,
	settings: Settings,
	runDir: string | null,
): Promise<FleetPlan> {
	const plan = agentArgs(settings, flags, runDir);
	if (flags.hosts === undefined && flags.cluster === undefined && typeof flags.slurmJob === 'string') {
		const jobId = flags.slurmJob;
		const nodes = await slurmJobNodes(jobId);
		const own = plan.gpuThresholds.size > 0 ? ['--gpu-thresholds', formatGpuThresholds(plan.gpuThresholds)] : [];
		return {
			connections: [srunConnection(jobId, nodes, {args: [...plan.args, '--slurm-job', jobId, ...own]})],
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

export async function runFleet({
	runDir,
	flags,
	settings,
	json,
	connections,
	declared,
	exitNow,
}: FleetCommandOptions): Promise<number> {
	const session = openFleetSession({settings, runDir, connections, declared});
	process.on('exit', () => session.killNow());
	const stop = stopOnSignals(exitNow);
	const tui = !flags.headless && !json && process.stdout.isTTY === true && process.stdin.isTTY === true;
	try {
		if (tui) {
			const {runFleetTui} = await import('../ui/fleet/run-fleet-tui.js');
			await runFleetTui(session, {stdout: process.stdout, stdin: process.stdin, signal: stop});
		} else {
			const {runFleetHeadless} = await import('../headless/fleet-run.js');
			await runFleetHeadless(session, {json, stdout: process.stdout, stderr: process.stderr, signal: stop});
		}
	} finally {
		await session.close();
		if (tui) sayAfterTheScreen(session);
	}
	return EXIT.ok;
}

/** What the many-node screen could not say on it (a node's log that cannot be written), once the screen is given back. */
function sayAfterTheScreen(session: FleetSession): void {
	for (const [node, recorder] of session.recorders) {
		const trouble = recorder.trouble.get();
		if (trouble) process.stderr.write(`traintop: ${node}: ${trouble}\n`);
	}
	if (session.logPattern) process.stderr.write(`traintop: memory logs ${session.logPattern}\n`);
}

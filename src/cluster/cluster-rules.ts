import {isPlainUuid} from '../config/gpu-thresholds.js';
import type {ClusterConfig, NodeConfig} from './cluster-schema.js';

// The seed's cluster validation (ClusterConfig::validate), in its order, each error naming the node: no nodes, a
// duplicate node name, max_adapters below 1, ssh to localhost, a GPU with zero VRAM, a GPU uuid twice on a node.
// Then what traintop adds because it hands these values to ssh and to `--gpu-thresholds`: a host, user and uuid
// must be plain names (a host "-oProxyCommand=…" would be an ssh option). The first problem found is reported.

/** A broken rule and where: the path of the value in the YAML (its line is looked up from it). */
export interface Problem {
	readonly path: readonly (string | number)[];
	readonly message: string;
}

const LOCALHOST = new Set(['localhost', '127.0.0.1', '::1']);
/** Host names, IPv4 and IPv6 addresses; never a leading "-". */
const HOST = /^[A-Za-z0-9_.:[\]][A-Za-z0-9_.:[\]-]*$/;
const USER = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;

function nodeProblem(node: NodeConfig, i: number): Problem | null {
	const at = (...rest: (string | number)[]) => ['nodes', i, ...rest];
	const named = `node "${node.name}"`;
	if (node.maxAdapters < 1)
		return {path: at('max_adapters'), message: `${named}: max_adapters must be at least 1 (got ${node.maxAdapters})`};
	if (node.transport === 'ssh' && LOCALHOST.has(node.host))
		return {
			path: at('host'),
			message: `${named}: transport ssh needs a host other than localhost (got "${node.host}"); this machine is transport: local`,
		};
	if (!HOST.test(node.host))
		return {path: at('host'), message: `${named}: host "${node.host}" is not a host name or address`};
	if (node.user !== null && !USER.test(node.user))
		return {path: at('user'), message: `${named}: user "${node.user}" is not a user name`};
	return gpusProblem(node, i);
}

function gpusProblem(node: NodeConfig, i: number): Problem | null {
	const seen = new Map<string, number>();
	for (const [j, gpu] of node.gpus.entries()) {
		const at = (key: string) => ['nodes', i, 'gpus', j, key];
		const named = `node "${node.name}": GPU "${gpu.uuid}"`;
		if (gpu.vramMb <= 0)
			return {path: at('vram_mb'), message: `${named} has zero VRAM (vram_mb must be above 0, got ${gpu.vramMb})`};
		const first = seen.get(gpu.uuid);
		if (first !== undefined)
			return {
				path: at('uuid'),
				message: `node "${node.name}": duplicate GPU uuid "${gpu.uuid}" (gpus[${first}] and gpus[${j}])`,
			};
		if (!isPlainUuid(gpu.uuid)) return {path: at('uuid'), message: `${named}: a GPU uuid holds no space, "," or "="`};
		seen.set(gpu.uuid, j);
	}
	return null;
}

/** The first rule the config breaks, or null. */
export function clusterProblem(config: ClusterConfig): Problem | null {
	if (config.nodes.length === 0)
		return {path: ['nodes'], message: 'no nodes: a cluster needs at least one node under "nodes:"'};
	const names = new Map<string, number>();
	for (const [i, node] of config.nodes.entries()) {
		const first = names.get(node.name);
		if (first !== undefined)
			return {
				path: ['nodes', i, 'name'],
				message: `duplicate node name "${node.name}" (nodes[${first}] and nodes[${i}]): node names must be unique`,
			};
		names.set(node.name, i);
		const problem = nodeProblem(node, i);
		if (problem) return problem;
	}
	return null;
}

import {z} from 'zod';

// The shape of a cluster.yaml, as the seed's cluster config (GPU-SHARE's ClusterConfig) defines it: the same keys,
// the same defaults (transport local, memory_type discrete, max_adapters 1), no others. Keys are checked here; the
// rules that span values (unique names, no ssh to localhost …) are in cluster-rules.ts, where they can name the node.

export type Transport = 'local' | 'ssh';
/** Discrete GPU memory, or memory shared with the CPU (Jetson, GB10): it sets the GPU's reserve factor. */
export type MemoryType = 'discrete' | 'unified';

export interface GpuConfig {
	/** As `nvidia-smi -L` prints it: `GPU-8f2c…`; the key a threshold is matched by. */
	readonly uuid: string;
	/** `rtx-4090`, `jetson-orin`: a label, not checked. */
	readonly type: string;
	readonly vramMb: number;
	readonly memoryType: MemoryType;
}

export interface NodeConfig {
	/** Unique in the cluster: how the node is shown and named in messages. */
	readonly name: string;
	readonly host: string;
	readonly transport: Transport;
	/** The ssh user; null = ssh's own default. */
	readonly user: string | null;
	/** Empty for a CPU-only node. */
	readonly gpus: readonly GpuConfig[];
	readonly maxAdapters: number;
	readonly cpuCores: number | null;
	readonly ramMb: number | null;
}

export interface ClusterConfig {
	readonly nodes: readonly NodeConfig[];
}

const text = (rule: string) => z.string({error: rule}).min(1, 'must not be empty');
const wholeNumber = (rule: string) => z.number({error: rule}).int(rule);
const positive = (rule: string) => wholeNumber(rule).positive(rule).nullable().default(null);

const gpuSchema = z.strictObject(
	{
		uuid: text('must be the GPU uuid as nvidia-smi -L prints it (GPU-…)'),
		type: text('must be the GPU type, e.g. rtx-4090 (a string)'),
		// Zero is the seed's "zero VRAM" error, reported with the node's name in cluster-rules.ts.
		vram_mb: wholeNumber('must be a whole number of MB'),
		memory_type: z.enum(['discrete', 'unified'], {error: 'must be discrete or unified'}).default('discrete'),
	},
	{error: 'must be a GPU: uuid, type, vram_mb and memory_type'},
);

const nodeSchema = z.strictObject(
	{
		name: text('must be the node name (a string)'),
		host: text('must be a host name or address (a string)'),
		transport: z.enum(['local', 'ssh'], {error: 'must be local or ssh'}).default('local'),
		user: text('must be the ssh user name (a string)').nullable().default(null),
		gpus: z.array(gpuSchema, {error: 'must be a list of GPUs'}).nullable().default([]),
		// Below 1 is the seed's max_adapters error, reported with the node's name in cluster-rules.ts.
		max_adapters: wholeNumber('must be a whole number of adapters').default(1),
		cpu_cores: positive('must be a whole number of cores above 0'),
		ram_mb: positive('must be a whole number of MB above 0'),
	},
	{error: 'must be a node: name, host, transport, user, gpus, max_adapters, cpu_cores, ram_mb'},
);

/** The file's schema: `nodes:` and nothing else. An empty `nodes:` is the seed's "no nodes" error, in the rules. */
export const clusterSchema = z.strictObject(
	{nodes: z.array(nodeSchema, {error: 'must be a list of nodes'}).nullable()},
	{error: 'must be a mapping with a "nodes:" list'},
);

/** The keys an object at `path` may hold, for an unknown key's message. */
export function knownKeysAt(path: readonly PropertyKey[]): readonly string[] {
	if (path.length === 0) return Object.keys(clusterSchema.shape);
	if (path.length === 2) return Object.keys(nodeSchema.shape);
	return Object.keys(gpuSchema.shape);
}

/** The YAML's snake_case as the code's camelCase. */
export function toClusterConfig(parsed: z.infer<typeof clusterSchema>): ClusterConfig {
	return {
		nodes: (parsed.nodes ?? []).map(node => ({
			name: node.name,
			host: node.host,
			transport: node.transport,
			user: node.user,
			gpus: (node.gpus ?? []).map(gpu => ({
				uuid: gpu.uuid,
				type: gpu.type,
				vramMb: gpu.vram_mb,
				memoryType: gpu.memory_type,
			})),
			maxAdapters: node.max_adapters,
			cpuCores: node.cpu_cores,
			ramMb: node.ram_mb,
		})),
	};
}

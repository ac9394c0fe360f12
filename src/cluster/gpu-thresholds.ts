import type {MemoryType, NodeConfig} from './cluster-schema.js';

// The seed's reserve factors (MemoryType::reserve_factor: the share of VRAM usable for training) as the default GPU
// memory threshold of each GPU a cluster.yaml lists: a discrete GPU is critical at 85 %, one whose memory is shared
// with the CPU at 60 % (the rest belongs to the OS and the CPU side of the job). Kept in whole percent: 0.85 × 100
// is 85.00000000000001 in floating point.
const RESERVE_PERCENT: Readonly<Record<MemoryType, number>> = {discrete: 85, unified: 60};

/** What the user set themselves (config file, then flags), not the defaults: that always wins. */
interface UserGpuThresholds {
	/** `--gpu-threshold` or the config file's `gpuThreshold`: one line for every GPU, reserve factors aside. */
	readonly gpuThreshold?: number;
	/** `--gpu-thresholds` or the config file's `gpuThresholds`: a GPU's own line, by uuid. */
	readonly gpuThresholds?: ReadonlyMap<string, number>;
}

/**
 * The per-GPU thresholds for one node's agent (uuid → critical percent): each listed GPU's reserve factor, unless
 * the user gave a GPU threshold: a `--gpu-threshold` for all replaces the reserve factors, and a `--gpu-thresholds`
 * entry replaces its GPU's. The user's entries are all kept, listed GPUs or not (cluster.yaml may list none).
 */
export function clusterGpuThresholds(node: NodeConfig, given: UserGpuThresholds): ReadonlyMap<string, number> {
	const thresholds = new Map<string, number>();
	if (given.gpuThreshold === undefined)
		for (const gpu of node.gpus) thresholds.set(gpu.uuid, RESERVE_PERCENT[gpu.memoryType]);
	for (const [uuid, percent] of given.gpuThresholds ?? []) thresholds.set(uuid, percent);
	return thresholds;
}

import {elementsOf} from './shape.js';

// The seed's DataLoader estimate (credit/trainers/preflight.py estimate_dataloader_memory_gib):
//
//   workers × prefetch_factor × batch_size × sample_bytes × 2
//
// Each worker keeps prefetch_factor batches ready; a sample is an input and a target of the same size (the ×2);
// sample_bytes = elements × dtype size (the seed: H × W × channels × 4, float32). That is one rank's loader; each
// local rank (torchrun --nproc-per-node) starts its own workers, so a node holds that many times as much.

export interface LoaderInputs {
	readonly workers: number;
	readonly prefetchFactor: number;
	readonly batchSize: number;
	/** One sample's dimensions (CxHxW). */
	readonly sampleShape: readonly number[];
	readonly dtypeBytes: number;
	/** Ranks on one node, each with its own DataLoader workers. */
	readonly nprocPerNode: number;
}

export interface LoaderEstimate {
	/** One input tensor of one sample. */
	readonly sampleBytes: number;
	/** One rank's prefetched batches, inputs and targets. */
	readonly perRankBytes: number;
	/** perRankBytes × the ranks on the node: what the node's RAM must hold. */
	readonly perNodeBytes: number;
}

/** Input and target are counted separately, as the seed does. */
export const TENSORS_PER_SAMPLE = 2;

export function estimateLoader(inputs: LoaderInputs): LoaderEstimate {
	const sampleBytes = elementsOf(inputs.sampleShape) * inputs.dtypeBytes;
	const perRankBytes = inputs.workers * inputs.prefetchFactor * inputs.batchSize * sampleBytes * TENSORS_PER_SAMPLE;
	return {sampleBytes, perRankBytes, perNodeBytes: perRankBytes * inputs.nprocPerNode};
}

import type {MetricId} from './types.js';

// The one spelling of a GPU's metric id. The Monitor judges `gpu0`, `gpu1`…, and every view that
// looks a device's level up (the memory pane, the headless status line, the memory log's series)
// must build the same key, so none of them writes the template itself.

/** `gpu0` for device 0: nvidia-smi's index, as the memory log records it. */
export function gpuMetricId(index: number): MetricId {
	return `gpu${index}`;
}

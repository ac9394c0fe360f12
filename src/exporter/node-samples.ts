import {LEVEL_RANK} from '../core/level.js';
import {ramAgainstLimit} from '../core/ram-limit.js';
import type {GpuState, Snapshot} from '../core/types.js';
import {type Put, putStateSet} from './samples.js';

// One node's own figures: its RAM as judged and as the host sees it, swap, CPU, each judged metric's level and threshold,
// the GPU reader's state and how old the snapshot is at the scrape.

const GPU_READER_STATES: readonly GpuState['status'][] = ['starting', 'ok', 'absent', 'error'];

export function putNode(put: Put, snapshot: Snapshot, now: number): void {
	const memory = snapshot.memory;
	if (memory) {
		// The same basis the `ram` metric is judged on (core/ram-limit.ts): the OOM killer acts at the cgroup's limit.
		const judged = ramAgainstLimit(memory);
		put('traintop_ram_used_percent', {}, judged.percent);
		put('traintop_ram_used_bytes', {}, judged.usedBytes);
		put('traintop_ram_limit_bytes', {}, judged.totalBytes);
		put('traintop_host_ram_used_percent', {}, memory.ram.percent);
		put('traintop_swap_used_percent', {}, memory.swap?.percent);
	}
	put('traintop_cpu_used_percent', {}, snapshot.cpu?.percent);
	for (const [metric, status] of Object.entries(snapshot.metrics)) {
		// 0 ok, 1 warn, 2 critical: the levels' own order, as the family's help says.
		put('traintop_metric_level', {metric}, LEVEL_RANK[status.level]);
		put('traintop_metric_threshold_percent', {metric}, status.threshold);
	}
	put('traintop_gpu_reader_up', {}, snapshot.gpu.status === 'ok');
	putStateSet(put, 'traintop_gpu_reader_state', {}, 'state', GPU_READER_STATES, snapshot.gpu.status);
	// A node's clock may run ahead of ours (an agent's snapshot): an age is never negative.
	put('traintop_snapshot_age_seconds', {}, Math.max(0, (now - snapshot.time) / 1000));
}

// Appends memory-log records as fast as it can until it is killed: the parent SIGKILLs it at a
// random moment and checks that every line on disk is whole.
import {MemoryLogWriter} from '../../dist/memlog/writer.js';

const [logPath] = process.argv.slice(2);
const writer = MemoryLogWriter.open(logPath);
// Large records (64 GPUs) so a write takes long enough for a kill to land inside the loop often.
const gpus = Array.from({length: 64}, (_, index) => ({
	index,
	uuid: `GPU-${index}`,
	name: 'NVIDIA H100 80GB HBM3',
	memory_used_gb: 40.5,
	memory_total_gb: 79.647,
	memory_percent: 50.85,
	peak_memory_percent: 51.2,
	utilization_percent: 97,
}));
let n = 0;
process.stdout.write('ready\n');
for (;;) {
	writer.append({
		timestamp: new Date().toISOString(),
		host: 'child',
		interval_s: 30,
		samples: 30,
		seq: n++,
		memory: {total_gb: 64, used_gb: 32, percent: 50, available_gb: 32, peak_percent: 51, peak_used_gb: 32.6},
		swap: null,
		gpu: null,
		gpus,
		gpu_status: 'ok',
		alerts: [],
	});
}

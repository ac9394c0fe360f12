// Every metric family the exporter serves: its name, its help line and its labels, in one table. The names are a
// contract (dashboards, alert rules and docs/exporter.md use them): a name changes only on purpose. All are gauges:
// each value is what the latest snapshot says at the scrape, not a count traintop keeps.

export interface Family {
	readonly name: string;
	readonly help: string;
	/** Its labels, `node` excepted: every node-scoped family gains `node` first when the session has many nodes. */
	readonly labels: readonly string[];
	/** Scoped to one node (it carries `host`): gains `node` with many nodes. */
	readonly node: boolean;
}

const GPU = ['host', 'gpu', 'uuid'];
const JOB = ['host', 'job'];
const RANK = ['host', 'job', 'rank'];
const RUN_DIR = ['host', 'job', 'run_dir'];

const nodeFamily = (name: string, help: string, labels: readonly string[]): Family => ({
	name,
	help,
	labels,
	node: true,
});

export const FAMILIES = [
	nodeFamily(
		'traintop_ram_used_percent',
		'RAM used as judged: against the job cgroup limit when it has one, else the host total',
		['host'],
	),
	nodeFamily('traintop_ram_used_bytes', 'RAM used, against the same basis as traintop_ram_used_percent', ['host']),
	nodeFamily('traintop_ram_limit_bytes', 'The RAM basis: the job cgroup limit, else the host total', ['host']),
	nodeFamily('traintop_host_ram_used_percent', 'Host RAM used (total minus available) over the host total', ['host']),
	nodeFamily('traintop_swap_used_percent', 'Swap used; absent on a host without swap', ['host']),
	nodeFamily('traintop_cpu_used_percent', 'Host CPU busy over all cores since the previous tick', ['host']),
	nodeFamily('traintop_metric_level', 'Level of a judged metric: 0 ok, 1 warn, 2 critical', ['host', 'metric']),
	nodeFamily('traintop_metric_threshold_percent', 'Critical threshold of a judged metric', ['host', 'metric']),
	nodeFamily('traintop_gpu_memory_used_bytes', 'GPU memory used', GPU),
	nodeFamily('traintop_gpu_memory_total_bytes', 'GPU memory total', GPU),
	nodeFamily('traintop_gpu_memory_used_percent', 'GPU memory used over total', GPU),
	nodeFamily('traintop_gpu_utilization_percent', 'GPU utilisation as nvidia-smi reports it', GPU),
	nodeFamily('traintop_gpu_power_watts', 'GPU board power draw', GPU),
	nodeFamily('traintop_gpu_power_limit_watts', 'GPU power limit', GPU),
	nodeFamily('traintop_gpu_temperature_celsius', 'GPU core temperature', GPU),
	nodeFamily('traintop_gpu_memory_temperature_celsius', 'GPU memory (HBM) temperature', GPU),
	nodeFamily('traintop_gpu_throttle', 'A clock event reason that means a problem: 1 active, 0 not', [...GPU, 'reason']),
	nodeFamily('traintop_gpu_ecc_enabled', 'ECC mode: 1 enabled, 0 disabled', GPU),
	nodeFamily(
		'traintop_gpu_ecc_errors',
		'Volatile ECC errors since the driver loaded, by kind (corrected, uncorrected)',
		[...GPU, 'kind'],
	),
	nodeFamily('traintop_gpu_retired_pages_pending', 'A page waits for a GPU reset to be retired: 1 yes, 0 no', GPU),
	nodeFamily('traintop_gpu_remapped_rows_pending', 'A row waits for a GPU reset to be remapped: 1 yes, 0 no', GPU),
	nodeFamily('traintop_gpu_remapped_rows_failure', 'A row remap failed, the GPU needs service: 1 yes, 0 no', GPU),
	nodeFamily('traintop_gpu_remapped_rows_uncorrectable', 'Rows remapped for uncorrectable errors', GPU),
	nodeFamily('traintop_job_rss_bytes', 'The job ranks and their workers by RSS (shared pages counted in each)', JOB),
	nodeFamily('traintop_job_pss_bytes', 'The job ranks and their workers by PSS', JOB),
	nodeFamily('traintop_job_gpu_memory_bytes', 'GPU memory of the job ranks and their workers', JOB),
	nodeFamily('traintop_job_ranks', 'Ranks of the job seen on the node', JOB),
	nodeFamily(
		'traintop_job_memory_growth_bytes_per_minute',
		'Summed growth of the job growing processes; 0 when none grows',
		JOB,
	),
	nodeFamily('traintop_rank_rss_bytes', 'A rank with its DataLoader workers by RSS', RANK),
	nodeFamily('traintop_rank_pss_bytes', 'A rank with its DataLoader workers by PSS', RANK),
	nodeFamily('traintop_rank_gpu_memory_bytes', 'GPU memory of a rank and its workers', RANK),
	nodeFamily(
		'traintop_rank_memory_growing',
		'The memory of a rank or one of its workers grows steadily (a leak): 1 yes, 0 no',
		RANK,
	),
	nodeFamily(
		'traintop_checkpoint_last_save_age_seconds',
		'Seconds since the newest complete save, at the scrape',
		RUN_DIR,
	),
	nodeFamily('traintop_checkpoint_last_save_duration_seconds', 'Write time of the newest complete save', RUN_DIR),
	nodeFamily('traintop_checkpoint_saves_until_full', 'Saves of the average size that still fit on the disk', RUN_DIR),
	nodeFamily('traintop_checkpoint_overdue', 'The next periodic save is overdue: 1 yes, 0 no', RUN_DIR),
	nodeFamily('traintop_checkpoints', 'Checkpoints in the run dir by status', [...RUN_DIR, 'status']),
	nodeFamily('traintop_job_readiness', 'Preemption readiness: 1 for the current verdict, 0 for the others', [
		...JOB,
		'verdict',
	]),
	nodeFamily('traintop_job_progress', 'Progress: 1 for the current verdict, 0 for the others', [...JOB, 'verdict']),
	nodeFamily('traintop_snapshot_age_seconds', 'Seconds since the node latest snapshot, at the scrape', ['host']),
	nodeFamily('traintop_gpu_reader_up', 'The GPU reader has a current sample: 1 yes, 0 no', ['host']),
	nodeFamily('traintop_gpu_reader_state', 'The GPU reader state: 1 for the current one, 0 for the others', [
		'host',
		'state',
	]),
	{name: 'traintop_node_up', help: 'The node agent link is connected: 1 yes, 0 no', labels: ['node'], node: false},
	{
		name: 'traintop_scrape_duration_seconds',
		help: 'How long the previous scrape took to build',
		labels: [],
		node: false,
	},
	{
		name: 'traintop_exporter_truncated',
		help: 'Per-rank families were left out to bound the response: 1 yes, 0 no',
		labels: [],
		node: false,
	},
	{
		name: 'traintop_build_info',
		help: 'The traintop version serving these metrics (always 1)',
		labels: ['version'],
		node: false,
	},
] as const satisfies readonly Family[];

export type FamilyName = (typeof FAMILIES)[number]['name'];

import {DEFAULT_SETTINGS, type SettingKey} from './schema.js';

/**
 * The one table of command-line options. meow's flag spec, `--help` and the README's options
 * table are all derived from it, so a flag cannot exist without its help line and default.
 */
export interface OptionSpec {
	/** camelCase name: the meow flag name and, for settings, the config-file key. */
	readonly name: string;
	/** How the flag is written, e.g. `--ram-threshold PCT`. */
	readonly usage: string;
	readonly kind: 'number' | 'string' | 'boolean';
	readonly description: string;
	/** Shown in --help; omitted for flags without one. */
	readonly defaultText?: string;
	/** Settings can also come from the config file; mode flags cannot. */
	readonly setting?: SettingKey;
}

const d = DEFAULT_SETTINGS;

export const OPTIONS: readonly OptionSpec[] = [
	{
		name: 'headless',
		usage: '--headless',
		kind: 'boolean',
		description: 'status lines and the memory log, no TUI (chosen anyway when stdout is not a terminal)',
	},
	{
		name: 'json',
		usage: '--json',
		kind: 'boolean',
		description: 'JSON on stdout: headless log records as JSON Lines; ranks and signal results as one object',
	},
	{
		name: 'analyze',
		usage: '--analyze PATH...',
		kind: 'boolean',
		description: 'report on memory logs (files, globs or run dirs) and exit',
	},
	{
		name: 'markdown',
		usage: '--markdown',
		kind: 'boolean',
		description: 'analyze: the report as Markdown (for an incident note)',
	},
	{
		name: 'plot',
		usage: '--plot FILE.svg',
		kind: 'string',
		description: 'analyze: also write an SVG chart of every metric with thresholds and episodes',
	},
	{
		name: 'failOnBreach',
		usage: '--fail-on-breach',
		kind: 'boolean',
		description: 'analyze: exit 4 when any metric reached its threshold',
	},
	{
		name: 'host',
		usage: '--host NAME',
		kind: 'string',
		description: "analyze: only this host's records (logs of a multi-node job hold one series per host)",
	},
	{
		name: 'interval',
		usage: '--interval S',
		kind: 'number',
		setting: 'interval',
		defaultText: `${d.interval}`,
		description: 'sampling period in seconds',
	},
	{
		name: 'logInterval',
		usage: '--log-interval S',
		kind: 'number',
		setting: 'logInterval',
		defaultText: `${d.logInterval}`,
		description: "seconds covered by each memory-log record (it keeps the window's peaks)",
	},
	{
		name: 'logFile',
		usage: '--log-file PATH',
		kind: 'string',
		setting: 'logFile',
		defaultText: 'RUN_DIR/traintop-memory.jsonl, else ./traintop-memory.jsonl',
		description: 'where the JSON Lines memory log is appended',
	},
	{name: 'log', usage: '--no-log', kind: 'boolean', setting: 'log', description: 'do not write the memory log file'},
	{
		name: 'ramThreshold',
		usage: '--ram-threshold PCT',
		kind: 'number',
		setting: 'ramThreshold',
		defaultText: `${d.ramThreshold}`,
		description: 'host RAM percent that is critical',
	},
	{
		name: 'gpuThreshold',
		usage: '--gpu-threshold PCT',
		kind: 'number',
		setting: 'gpuThreshold',
		defaultText: `${d.gpuThreshold}`,
		description: 'GPU memory percent (each device) that is critical',
	},
	{
		name: 'gpuThresholds',
		usage: '--gpu-thresholds UUID=PCT,…',
		kind: 'string',
		setting: 'gpuThresholds',
		defaultText: "none; --cluster: each listed GPU's reserve factor",
		description: 'a GPU (by uuid, as nvidia-smi -L shows it) critical at its own percent instead of --gpu-threshold',
	},
	{
		name: 'swapThreshold',
		usage: '--swap-threshold PCT',
		kind: 'number',
		setting: 'swapThreshold',
		defaultText: `${d.swapThreshold}`,
		description: 'swap percent that is critical',
	},
	{
		name: 'warnMargin',
		usage: '--warn-margin PTS',
		kind: 'number',
		setting: 'warnMargin',
		defaultText: `${d.warnMargin}`,
		description: 'warn this many points below each threshold',
	},
	{
		name: 'hysteresis',
		usage: '--hysteresis PTS',
		kind: 'number',
		setting: 'hysteresis',
		defaultText: `${d.hysteresis}`,
		description: 'a level drops only this many points below its boundary',
	},
	{
		name: 'gpuProcessInterval',
		usage: '--gpu-process-interval S',
		kind: 'number',
		setting: 'gpuProcessInterval',
		defaultText: `${d.gpuProcessInterval}`,
		description: 'seconds between per-process GPU memory queries (0 = off)',
	},
	{
		name: 'nvidiaSmi',
		usage: '--nvidia-smi CMD',
		kind: 'string',
		setting: 'nvidiaSmi',
		defaultText: d.nvidiaSmi,
		description: 'the nvidia-smi command or path to run',
	},
	{
		name: 'pid',
		usage: '--pid PID',
		kind: 'number',
		description: 'find ranks among this process (torchrun, srun or a rank) and its descendants',
	},
	{
		name: 'match',
		usage: '--match REGEX',
		kind: 'string',
		description: 'ranks are the processes whose command line matches (with their workers)',
	},
	{
		name: 'job',
		usage: '--job ID',
		kind: 'string',
		description:
			'signal, ranks: the job (an id as `traintop ranks` lists it, its launcher pid, or a SLURM job or job.step)',
	},
	{
		name: 'slurmJob',
		usage: '--slurm-job J',
		kind: 'string',
		defaultText: '$SLURM_JOB_ID inside an allocation',
		description:
			'the SLURM job: its state, time left, warning signal and steps in the job pane; its ranks for the TUI, headless, ranks and signal (as --job J)',
	},
	{
		name: 'ranksInterval',
		usage: '--ranks-interval S',
		kind: 'number',
		setting: 'ranksInterval',
		defaultText: `${d.ranksInterval}`,
		description: 'seconds between rank scans',
	},
	{
		name: 'stallAfter',
		usage: '--stall-after S',
		kind: 'number',
		setting: 'stallAfter',
		defaultText: `${d.stallAfter}`,
		description: 'flag a running rank as stalled after this many seconds without CPU time',
	},
	{name: 'rank', usage: '--rank N,N', kind: 'string', description: 'signal: only these ranks (default: every rank)'},
	{
		name: 'yes',
		usage: '--yes',
		kind: 'boolean',
		description: 'signal: do not ask for confirmation (needed without a terminal)',
	},
	{
		name: 'force',
		usage: '--force',
		kind: 'boolean',
		description: 'signal: send even to ranks that have no handler (the signal terminates them)',
	},
	{
		name: 'batch',
		usage: '--batch',
		kind: 'boolean',
		description:
			"signal: to the SLURM job's batch shell instead of its steps (refused unless the shell handles the signal)",
	},
	{
		name: 'hosts',
		usage: '--hosts A,B,…',
		kind: 'string',
		description:
			'watch these nodes on one screen: a `traintop agent` on each through ssh ([user@]host; `local` runs one here)',
	},
	{
		name: 'cluster',
		usage: '--cluster FILE',
		kind: 'string',
		description: "watch the nodes of a cluster.yaml (ssh or local per node; its GPUs' reserve factors as thresholds)",
	},
	{
		name: 'sshCommand',
		usage: '--ssh-command CMD',
		kind: 'string',
		defaultText: '$TRAINTOP_SSH_COMMAND, else ssh -T -o BatchMode=yes …',
		description: "the ssh that starts each node's agent, a shell command as GIT_SSH_COMMAND is (a wrapper, options)",
	},
	{
		name: 'agents',
		usage: '--agents',
		kind: 'boolean',
		description:
			'with --slurm-job J: watch (and signal) every node of the job through a `traintop agent` on each, one srun --overlap step',
	},
	{
		name: 'saveSignal',
		usage: '--save-signal SIG',
		kind: 'string',
		setting: 'saveSignal',
		defaultText: d.saveSignal,
		description: 'the signal `signal save` sends',
	},
	{
		name: 'emergencySignal',
		usage: '--emergency-signal SIG',
		kind: 'string',
		setting: 'emergencySignal',
		defaultText: d.emergencySignal,
		description: 'the signal `signal emergency` sends (save and exit for requeue)',
	},
	{
		name: 'keep',
		usage: '--keep N',
		kind: 'number',
		setting: 'keep',
		defaultText: 'none',
		description:
			"keep-N for frameworks whose run dir does not say it (what the next save prunes); a run's own setting wins",
	},
	{
		name: 'poll',
		usage: '--poll S',
		kind: 'number',
		setting: 'poll',
		defaultText: '0 (inotify)',
		description: "poll the run dir every S seconds (NFS, Lustre, GPFS do not report other nodes' writes)",
	},
	{
		name: 'wait',
		usage: '--wait',
		kind: 'boolean',
		description: 'signal: wait for the new checkpoint and report it (exit 3 if none comes)',
	},
	{
		name: 'timeout',
		usage: '--timeout S',
		kind: 'number',
		setting: 'timeout',
		defaultText: `${d.timeout}`,
		description: 'signal --wait and the TUI: seconds to wait for the checkpoint after a save',
	},
	{
		name: 'nodeName',
		usage: '--node-name NAME',
		kind: 'string',
		defaultText: '$SLURMD_NODENAME, else the hostname',
		description: 'agent: the host name its messages carry and its commands must name',
	},
	{
		name: 'readonly',
		usage: '--readonly',
		kind: 'boolean',
		setting: 'readonly',
		description: 'no actions: every signal is refused',
	},
	{
		name: 'config',
		usage: '--config FILE',
		kind: 'string',
		defaultText: '$TRAINTOP_CONFIG',
		description: 'JSON file of settings (camelCase keys, e.g. {"ramThreshold": 80}); flags win over it',
	},
	{name: 'help', usage: '--help', kind: 'boolean', description: 'show this help'},
	{name: 'version', usage: '--version', kind: 'boolean', description: 'show the version'},
];

/** `logInterval` → `--log-interval`: how a camelCase name is written as a flag. */
export function flagName(name: string): string {
	return `--${name.replace(/[A-Z]/g, c => `-${c.toLowerCase()}`)}`;
}

/** The --help text: usage, modes, then every option with its default. */
export function helpText(): string {
	const width = Math.max(...OPTIONS.map(o => o.usage.length)) + 2;
	const lines = OPTIONS.map(o => {
		const def = o.defaultText === undefined ? '' : ` (default: ${o.defaultText})`;
		return `    ${o.usage.padEnd(width)}${o.description}${def}`;
	});
	return [
		'traintop — watch a training job: RAM, swap and GPU memory against thresholds, its ranks and their signal handlers, its checkpoints.',
		'',
		'Usage',
		'    traintop demo                        start a simulated 4-rank job and open the TUI on it (q quits, the job stops)',
		'    traintop [RUN_DIR] [--pid P]         the interactive TUI (on a terminal); keys: ? for help',
		'    traintop --headless [RUN_DIR]        status lines and the memory log (also when stdout is not a terminal)',
		'    traintop --headless --json           log records as JSON Lines on stdout',
		'    traintop ranks [--json] [--job ID]   the jobs, their ranks, workers and signal handlers',
		'    traintop signal <save|emergency|SIG> [RUN_DIR] [--job ID] [--rank N,N] [--yes] [--force] [--wait] [--json]',
		"                                         send a signal to ONE job's ranks, safely (see README)",
		'    traintop --analyze PATH... [--json|--markdown] [--plot FILE.svg] [--fail-on-breach] [--host NAME]',
		'                                         post-mortem of memory logs (files, globs, run dirs), one series per host',
		'    traintop checkpoints [RUN_DIR] [--json] [--keep N]',
		'                                         the checkpoint timeline, retention plan and disk headroom',
		'    traintop agent [RUN_DIR] [--pid P] [--node-name NAME]',
		'                                         one node for a traintop that watches many: JSON Lines on stdout,',
		'                                         commands on stdin; exits when stdin closes (see README)',
		'',
		'Ranks are found among your processes that carry RANK, LOCAL_RANK or SLURM_PROCID (or with --pid / --match),',
		'and grouped into jobs. A signal goes to one job: the only one, or the one RUN_DIR, --job, --pid or --match picks.',
		'',
		'Options',
		...lines,
		'',
		'Exit codes: 0 ok · 1 runtime failure · 2 usage, config or unreadable input · 3 a signal was refused or failed · 4 --fail-on-breach found a breach',
	].join('\n');
}

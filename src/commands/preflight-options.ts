import type {OptionSpec} from '../config/option-spec.js';

// `traintop preflight`'s own flags, shaped like the option table's entries (config/options.ts) so help and
// completion take them from here (cli/commands.ts: a command's `options`). Numbers arrive as strings, as every
// flag's do: preflight/inputs.ts quotes a bad one back as typed. It also takes --json, --fail-on-breach,
// --ram-threshold, --warn-margin, --gpu-threshold(s), --nvidia-smi, --keep and --config from the shared table.

/**
 * Empty until `preflight` is one of cli/commands.ts' COMMAND_NAMES; then ['preflight'] (help scopes them by it). They
 * reach the parser and `traintop preflight --help` through its CommandSpec's `options` either way.
 */
const OWN: OptionSpec['commands'] = ['preflight'];

export const PREFLIGHT_OPTIONS: readonly OptionSpec[] = [
	{
		name: 'trainConfig',
		usage: '--train-config FILE',
		kind: 'string',
		description: "the training config (YAML or JSON) to read the DataLoader's settings from",
		commands: OWN,
	},
	{
		name: 'preflightKeys',
		usage: '--preflight-keys KEY=PATH,…',
		kind: 'string',
		defaultText: "the seed's layout (trainer.thread_workers, …)",
		description:
			'where the training config holds each input, as dotted paths (workers, prefetch_factor, batch_size, sample_shape or channels/height/width, dtype, nproc_per_node)',
		commands: OWN,
	},
	{
		name: 'workers',
		usage: '--workers N',
		kind: 'number',
		description: 'DataLoader workers per rank (num_workers)',
		commands: OWN,
	},
	{
		name: 'prefetchFactor',
		usage: '--prefetch-factor N',
		kind: 'number',
		description: 'batches each worker keeps ready',
		commands: OWN,
	},
	{
		name: 'batchSize',
		usage: '--batch-size N',
		kind: 'number',
		description: "samples in one rank's batch",
		commands: OWN,
	},
	{
		name: 'sampleShape',
		usage: '--sample-shape CxHxW',
		kind: 'string',
		description: "one sample's input tensor shape, e.g. 3x224x224",
		commands: OWN,
	},
	{
		name: 'dtype',
		usage: '--dtype TYPE',
		kind: 'string',
		defaultText: 'float32',
		description: 'the tensor dtype the loader yields (float32, bfloat16, uint8, …)',
		commands: OWN,
	},
	{
		name: 'nprocPerNode',
		usage: '--nproc-per-node N',
		kind: 'number',
		defaultText: '1',
		description: 'ranks on one node (torchrun --nproc-per-node), each with its own workers',
		commands: OWN,
	},
	{
		name: 'batchScript',
		usage: '--batch-script FILE',
		kind: 'string',
		description:
			"the job's batch script: the warning signal it asks for, its target and the shell's trap, the launcher it starts (readiness)",
		commands: OWN,
	},
	{
		name: 'runDir',
		usage: '--run-dir DIR',
		kind: 'string',
		description: "a previous run's dir: its saves' write times against the lead (readiness), and its disk as RUN_DIR's",
		commands: OWN,
	},
];

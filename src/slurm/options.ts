import type {OptionWords, SchedulerOption} from '../config/option-spec.js';
import {UsageError} from '../core/errors.js';

// SLURM's own command-line options (its entry lists them; config/options.ts places each after the option named by
// `after`), its words in the generic options' help, and its flag's value read into a job id.

export const SLURM_OPTIONS: readonly SchedulerOption[] = [
	{
		name: 'slurmJob',
		usage: '--slurm-job J',
		kind: 'string',
		defaultText: '$SLURM_JOB_ID inside an allocation',
		description:
			'the SLURM job: its state, time left, warning signal and steps in the job pane; its ranks for the TUI, headless, ranks and signal (as --job J); its working directory for checkpoints',
		commands: ['monitor', 'agent', 'ranks', 'checkpoints', 'signal'],
		after: 'job',
	},
	{
		name: 'batch',
		usage: '--batch',
		kind: 'boolean',
		description: "to the SLURM job's batch shell instead of its steps (refused unless the shell handles the signal)",
		commands: ['signal'],
		after: 'force',
	},
];

/** SLURM's words in generic options' help: its job forms, its tools, how its agents start, its node name. */
export const SLURM_OPTION_WORDS: Readonly<Record<string, OptionWords>> = {
	job: {description: 'the job (an id as `traintop ranks` lists it, its launcher pid, or a SLURM job or job.step)'},
	force: {
		description:
			'send even where a rank has no handler (the signal terminates it), is stopped, or (srun, scancel) cannot be read here',
	},
	agents: {
		description:
			'with --slurm-job J: watch (and signal) every node of the job through a `traintop agent` on each, one srun --overlap step',
	},
	nodeName: {defaultText: '$SLURMD_NODENAME, else the hostname'},
};

const SLURM_JOB = /^\d+(?:_\d+)?(?:\.(?:\d+|batch|extern))?$/;

/**
 * The SLURM job to follow: `--slurm-job J` (`value`), else (undefined) the allocation traintop runs in
 * (SLURM_JOB_ID, set by srun and sbatch); null outside SLURM. An array task is `J_N`; a step `J.S` names its job.
 */
export function slurmJobFromFlags(value: unknown, env: NodeJS.ProcessEnv = process.env): string | null {
	if (value === undefined) {
		const inside = env.SLURM_JOB_ID ?? env.SLURM_JOBID;
		return inside !== undefined && SLURM_JOB.test(inside) ? inside : null;
	}
	const text = String(value).trim();
	if (!SLURM_JOB.test(text)) {
		throw new UsageError(
			`--slurm-job needs a SLURM job id such as 4242, 4242_3 (an array task) or 4242.0 (got ${text})`,
		);
	}
	return text.replace(/\.(?:\d+|batch|extern)$/, '');
}

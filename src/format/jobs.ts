import type {Job} from '../core/types.js';
import type {RankSelector} from '../ranks/tree.js';
import {truncate} from './columns.js';
import {compactCommand} from './command-line.js';
import {printable} from './printable.js';

// A job in words, for lists (signal's "which job?", ranks) and headers.

/** `4 ranks (world 4)`, or with `bare` `4 (world 4)` (after the pane's RANKS). */
export function rankCountText(job: Job, bare = false): string {
	const n = job.ranks.length;
	const world = job.worldSize === null ? '' : ` (world ${job.worldSize})`;
	return bare ? `${n}${world}` : `${n} rank${n === 1 ? '' : 's'}${world}`;
}

/** `2 of 4 local ranks` when ranks this host should run are missing; null when all are here (or unknown). */
export function missingLocalText(job: Job): string | null {
	return job.allLocalRanksPresent || job.localWorldSize === null
		? null
		: `${job.ranks.length} of ${job.localWorldSize} local ranks`;
}

/** `998.0`: a SLURM job.step as squeue writes it, the job id (a rank's SLURM_JOB_ID) shown escaped. */
export function slurmIdText(slurm: NonNullable<Job['slurm']>): string {
	return `${printable(slurm.jobId)}${slurm.stepId === null ? '' : `.${slurm.stepId}`}`;
}

/** A command line in a job's line: without its interpreter's path, cut at 70 columns. */
const shortCommand = (cmd: string): string => truncate(compactCommand(cmd), 70);

/**
 * One line: `torchrun:4242  4 ranks (world 4)  run dir /runs/a  SLURM 998.0  launcher 4242 torchrun …` — where
 * it runs ("in /home/u/exp") when no RUN_DIR names it, since that is what tells two jobs apart. `command` writes the
 * launcher's (or rank 0's) command line: `ranks --wide` gives it whole.
 */
export function jobLine(job: Job, width = 160, command: (cmd: string) => string = shortCommand): string {
	const missing = missingLocalText(job);
	// The id, the paths and the SLURM job id come from the ranks' environment and the file system: shown, not obeyed.
	const parts = [printable(job.id), rankCountText(job), ...(missing ? [missing] : [])];
	if (job.runDir) parts.push(`run dir ${printable(job.runDir)}`);
	else if (job.cwd) parts.push(`in ${printable(job.cwd)}`);
	if (job.slurm) parts.push(`SLURM ${slurmIdText(job.slurm)}`);
	if (job.launcher) parts.push(`launcher ${job.launcher.pid} ${command(job.launcher.cmd)}`);
	else parts.push(`rank 0 ${command(job.ranks[0]?.cmd ?? '')}`);
	return truncate(parts.join('  '), width);
}

/** Where ranks are looked for, said where none was found; a --pid that is not running says the job ended. */
export function searchText(selector: RankSelector, pidRunning: boolean): string {
	switch (selector.kind) {
		case 'env':
			return 'looking for your processes with RANK, LOCAL_RANK or SLURM_PROCID set; use --pid or --match';
		case 'pid':
			return pidRunning
				? `looking among process ${selector.pid} and its descendants`
				: `process ${selector.pid} is not running: the job it started has ended, or the pid is wrong`;
		case 'match':
			return `looking for processes whose command line matches /${selector.pattern.source}/`;
	}
}

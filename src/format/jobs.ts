import type {Job} from '../core/types.js';
import {schedulerOf, taskSchedulers} from '../scheduler/kinds.js';
import type {SchedulerTask} from '../scheduler/task.js';
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

/**
 * `NAME 998.0`: the scheduler's name and the task's job.step as the scheduler writes them, escaped (the ids come
 * from the rank's environment).
 */
function taskIdText(task: SchedulerTask): string {
	const scheduler = schedulerOf(task);
	const id = scheduler ? scheduler.idText(task) : `${task.jobId}${task.stepId === null ? '' : `.${task.stepId}`}`;
	return `${scheduler?.name ?? task.scheduler} ${printable(id)}`;
}

/** `NAME 998.0, 1 restart`: restarts only once there have been some. */
export function taskText(task: SchedulerTask): string {
	const n = task.restartCount;
	return `${taskIdText(task)}${n === 0 ? '' : `, ${n} restart${n === 1 ? '' : 's'}`}`;
}

/** Each scheduler's variables by their common prefix: `PREFIX_…`. */
export function schedulerVariablesText(): string[] {
	return taskSchedulers().flatMap(one => {
		const first = one.detailVars[0];
		return first === undefined ? [] : [`${first.slice(0, first.indexOf('_') + 1)}…`];
	});
}

/** `RANK, LOCAL_RANK or …`: the variables that make a process a rank, each scheduler's task index last. */
export function rankVariablesText(): string {
	const names = ['RANK', 'LOCAL_RANK', ...taskSchedulers().map(one => one.rankVars.rank)];
	return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** A command line in a job's line: without its interpreter's path, cut at 70 columns. */
const shortCommand = (cmd: string): string => truncate(compactCommand(cmd), 70);

/**
 * One line: `torchrun:4242  4 ranks (world 4)  run dir /runs/a  NAME 998.0  launcher 4242 torchrun …` — where
 * it runs ("in /home/u/exp") when no RUN_DIR names it, since that is what tells two jobs apart. `command` writes the
 * launcher's (or rank 0's) command line: `ranks --wide` gives it whole.
 */
export function jobLine(job: Job, width = 160, command: (cmd: string) => string = shortCommand): string {
	const missing = missingLocalText(job);
	// The id, the paths and the scheduler's job id come from the ranks' environment and the file system: shown, not obeyed.
	const parts = [printable(job.id), rankCountText(job), ...(missing ? [missing] : [])];
	if (job.runDir) parts.push(`run dir ${printable(job.runDir)}`);
	else if (job.cwd) parts.push(`in ${printable(job.cwd)}`);
	if (job.task) parts.push(taskIdText(job.task));
	if (job.launcher) parts.push(`launcher ${job.launcher.pid} ${command(job.launcher.cmd)}`);
	else parts.push(`rank 0 ${command(job.ranks[0]?.cmd ?? '')}`);
	return truncate(parts.join('  '), width);
}

/** Where ranks are looked for, said where none was found; a --pid that is not running says the job ended. */
export function searchText(selector: RankSelector, pidRunning: boolean): string {
	switch (selector.kind) {
		case 'env':
			return `looking for your processes with ${rankVariablesText()} set; use --pid or --match`;
		case 'pid':
			return pidRunning
				? `looking among process ${selector.pid} and its descendants`
				: `process ${selector.pid} is not running: the job it started has ended, or the pid is wrong`;
		case 'match':
			return `looking for processes whose command line matches /${selector.pattern.source}/`;
	}
}

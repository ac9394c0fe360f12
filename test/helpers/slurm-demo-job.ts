import {execFile} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {CLI, ROOT} from './dist.js';
import type {SlurmCluster} from './slurm-cluster.js';
import {until} from './until.js';

// The signal tests' SLURM job: a batch job whose one step runs the demo rank as 2 srun tasks (task outputs in
// DIR/task-N.out), and the built traintop run against that cluster, optionally from a login node's view.

const RANK_PY = path.join(ROOT, 'demo/job/rank.py');
const RANK_ARGS = '--workers 0 --save-every 0 --step-seconds 0.1';

export interface Run {
	readonly code: number;
	readonly stdout: string;
	readonly stderr: string;
}

export interface DemoJob {
	readonly id: string;
	readonly runDir: string;
	/** What task N printed so far (`ready pid P`, `rank N got SIGUSR1`…). */
	taskOut(n: number): string;
	/** Task N's pid, from its `ready pid P` line. */
	taskPid(n: number): number;
}

/** The built traintop with the cluster's environment; `isolated`: in its own PID namespace (sees no job process). */
export function traintopOn(cluster: SlurmCluster, args: readonly string[], isolated = false): Promise<Run> {
	const [command, argv] = isolated
		? ['unshare', ['-pf', '--mount-proc', process.execPath, CLI, ...args]]
		: [process.execPath, [CLI, ...args]];
	return new Promise(resolve => {
		execFile(command, argv, {env: cluster.env, timeout: 90_000, encoding: 'utf8'}, (error, stdout, stderr) => {
			const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
			resolve({code, stdout, stderr});
		});
	});
}

/** Submits `script` as a 2-task job of 5 minutes beside the others (its batch output in `dir`); its id, once running. */
export async function runningTwoTaskJob(cluster: SlurmCluster, script: string, dir: string): Promise<number> {
	const id = cluster.sbatch(script, ['--ntasks=2', '--time=5', '--oversubscribe', `--output=${dir}/batch.out`]);
	await until(
		() => cluster.job(id).JobState,
		state => state === 'RUNNING',
		`job ${id} running`,
		30_000,
	);
	return id;
}

/**
 * Submits the job and resolves once both tasks have installed their handlers. `hidden`: task 1 runs without any
 * rank variable and in its own run dir, as a task on another node would look from here. `wrapped`: see below.
 */
export async function startDemoJob(
	cluster: SlurmCluster,
	name: string,
	options: {trap?: string; hidden?: boolean; wrapped?: boolean} = {},
): Promise<DemoJob> {
	const dir = path.join(cluster.dir, name);
	const runDir = path.join(dir, 'run');
	mkdirSync(runDir, {recursive: true});
	const rank = `python3 ${RANK_PY} --run-dir ${runDir} ${RANK_ARGS}`;
	const direct = options.hidden
		? `if [ "$SLURM_PROCID" = 0 ]; then export RANK=0 WORLD_SIZE=2; exec ${rank}; else exec env -u SLURM_PROCID -u SLURM_LOCALID ${rank.replace(runDir, `${dir}/hidden`)}; fi`
		: `export RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS; exec ${rank}`;
	// `wrapped`: the task is the shell, the rank its child, as many job scripts have it (bash execs a -c string's
	// last command itself, so something must follow it).
	const task = options.wrapped ? `${direct.replace('exec ', '')}; exit $?` : direct;
	const script = [
		'#!/bin/bash',
		...(options.trap ? [options.trap] : []),
		`srun --output=${dir}/task-%t.out bash -c '${task}' &`,
		'wait',
		'',
	].join('\n');
	const id = await runningTwoTaskJob(cluster, script, dir);
	const taskOut = (n: number) => {
		const file = path.join(dir, `task-${n}.out`);
		return existsSync(file) ? readFileSync(file, 'utf8') : '';
	};
	await until(
		() => `${taskOut(0)}${taskOut(1)}`,
		out => (out.match(/ ready pid /g) ?? []).length === 2,
		`job ${id}'s tasks ready`,
		30_000,
	);
	const taskPid = (n: number) => Number(/ready pid (\d+)/.exec(taskOut(n))?.[1]);
	return {id: String(id), runDir, taskOut, taskPid};
}

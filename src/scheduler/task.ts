// A rank's place in its scheduler's job (a batch scheduler's task of a step; a pod of a JobSet), as its environment names it and
// where it sits proves it (ranks/job-proof.ts), and what generic code asks a scheduler about such tasks. No imports:
// core/job-types.ts carries the task, and the scheduler's own module (src/<kind>/) fills it.

/** A task of a scheduler's job, read from the rank's environment; kept only where its step is proven. */
export interface SchedulerTask {
	/** The registry's kind of the scheduler that runs it. */
	readonly scheduler: string;
	readonly jobId: string;
	/** The step (or replica group) of the job it runs in; null: its environment does not say. */
	readonly stepId: string | null;
	/** How many times the scheduler restarted the job, as the task was told; 0 when not told. */
	readonly restartCount: number;
	/** Its index among the step's tasks; null: not said. */
	readonly taskId: number | null;
}

/** A job of a scheduler: its kind and its id there. */
export interface ScheduledJob {
	readonly kind: string;
	readonly jobId: string;
}

/** A job and step, as a task's environment claims it or a step daemon or cgroup proves it. */
export interface TaskStep {
	readonly job: string;
	/** null: not said (a claim without a step accepts any step of the job). */
	readonly step: string | null;
}

/** What the ranks' discovery, their words, `ranks --json` and the agent protocol ask a scheduler about its tasks. */
export interface SchedulerTasks {
	/** The task a process's environment names; null: none of this scheduler's. */
	fromEnv(env: ReadonlyMap<string, string>): SchedulerTask | null;
	/** Its variables for a rank, local rank and world size, asked after the launcher's (RANK, LOCAL_RANK, WORLD_SIZE). */
	readonly rankVars: {readonly rank: string; readonly localRank: string; readonly worldSize: string};
	/** Ranks this host should run as its variables say (after LOCAL_WORLD_SIZE); null: they do not say one number. */
	localWorldSize(env: ReadonlyMap<string, string>): number | null;
	/** Its variables a rank's detail shows: ids only (an environment also holds tokens and passwords). */
	readonly detailVars: readonly string[];
	/** Its own programs: never a rank (whatever their environment says), never offered as a launcher. */
	readonly programs: readonly string[];
	/** The program that starts a step's tasks on every node and forwards a signal to them all; the whole job ends with them. */
	readonly launcher: string;
	/** The daemon above each task of a step (root's): its comm, and the step its command line names. */
	readonly stepDaemon: {readonly comm: string; step(commandLine: string): TaskStep | null};
	/** The step a /proc/PID/cgroup places the process in (only root moves a process there); null: none of its. */
	cgroupStep(cgroup: string): TaskStep | null;
	/** The job's id for a task of it: one id on every node (`KIND:998.0`). */
	jobId(task: TaskStep): string;
	/** Does `--job wanted` name the task's job (its scheduler's job id, job.step)? */
	names(task: SchedulerTask, wanted: string): boolean;
	/** The task's job and step as the scheduler writes them (`998.0`); unescaped. */
	idText(task: SchedulerTask): string;
	/**
	 * Its own key on the agent protocol for a rank's or a job's task from before the scheduler seam,
	 * the value sent there, and the task read back; absent: the task is sent as it is, under `task`.
	 */
	readonly wire?: {readonly key: string; to(task: SchedulerTask): unknown; from(value: unknown): SchedulerTask | null};
}

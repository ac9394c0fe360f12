// The demo job's options, and the launcher's command line made from them: every number and rank list is checked
// here, so a nonsense option is a RangeError before any process starts.

export interface DemoJobOptions {
	/** The ranks' working directory; checkpoints go to `<runDir>/checkpoints`. Created when missing. */
	runDir: string;
	ranks?: number; // 4
	workers?: number; // 2 pt_data_worker children per rank
	stepSeconds?: number; // 0.2
	saveEvery?: number; // 50 steps; 0 = no periodic checkpoints
	maxCheckpoints?: number; // 3
	/** Ranks exit 0 on reaching this step (a resumed run counts from its checkpoint); undefined = until stopped. */
	maxSteps?: number;
	stepsPerEpoch?: number; // 100 (only for the epoch recorded in checkpoints)
	/** Ranks that install no SIGUSR1 handler (SIGUSR1 kills them). */
	noUsr1Ranks?: readonly number[];
	/** MiB per minute each leaking rank holds on to (really resident). */
	leakMbPerMin?: number;
	/** Which ranks leak; default all. */
	leakRanks?: readonly number[];
	checkpointBytes?: number; // 256 KiB: exact size of state.pt
	/** Pause inside each save between writing `<name>.tmp/state.pt` and the rename. */
	slowSaveSeconds?: number;
	/** The launcher's wait after forwarding a signal before SIGKILL (torchrun: 30). */
	shutdownTimeoutS?: number; // 30
	masterPort?: number; // 29500 (nothing listens on it)
	/** Interpreter: a command looked up on PATH, or a path. Default `python3`. */
	python?: string;
	/** Extra environment for the launcher (it removes the rank variables, torchrun's and the scheduler's, from its own). */
	env?: NodeJS.ProcessEnv;
	/** The launcher shuts down (as on SIGTERM) when this process dies. Default true: no orphaned demo jobs. */
	exitWithParent?: boolean;
}

function numberArg(name: string, value: number | undefined, min: number, integer: boolean): string[] {
	if (value === undefined) return [];
	if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
		throw new RangeError(`demo job: ${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${value}`);
	}
	return [`--${name}`, String(value)];
}

function rankListArg(name: string, ranks: readonly number[] | undefined): string[] {
	if (ranks === undefined || ranks.length === 0) return [];
	for (const rank of ranks) {
		if (!Number.isInteger(rank) || rank < 0)
			throw new RangeError(`demo job: ${name} must list ranks >= 0, got ${rank}`);
	}
	return [`--${name}`, ranks.join(',')];
}

/** The launcher's argv after the script path. */
export function demoLauncherArgs(options: DemoJobOptions, runDir: string): string[] {
	return [
		'--run-dir',
		runDir,
		...numberArg('ranks', options.ranks, 1, true),
		...numberArg('workers', options.workers, 0, true),
		...numberArg('step-seconds', options.stepSeconds, 0, false),
		...numberArg('save-every', options.saveEvery, 0, true),
		...numberArg('max-checkpoints', options.maxCheckpoints, 1, true),
		...numberArg('max-steps', options.maxSteps, 1, true),
		...numberArg('steps-per-epoch', options.stepsPerEpoch, 1, true),
		...numberArg('checkpoint-bytes', options.checkpointBytes, 0, true),
		...numberArg('slow-save-seconds', options.slowSaveSeconds, 0, false),
		...numberArg('leak-mb-per-min', options.leakMbPerMin, 0, false),
		...numberArg('shutdown-timeout', options.shutdownTimeoutS, 0, false),
		...numberArg('master-port', options.masterPort, 1, true),
		...rankListArg('no-usr1-rank', options.noUsr1Ranks),
		...rankListArg('leak-rank', options.leakRanks),
		...(options.exitWithParent === false ? [] : ['--exit-with-parent']),
	];
}

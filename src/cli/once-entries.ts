import {jobFromFlag, ranksFromFlag} from '../config/selection.js';
import {flaggedJob, schedulerEntry} from '../scheduler/registry.js';
import {EXIT, UsageError} from '../core/errors.js';
import type {Call, SettledCall} from './call.js';

// The commands that answer and exit: each checks its arguments, turns the flags into its command's options and
// imports the command only when chosen (`--analyze` of a big log should not pay for the monitor's readers).

export async function helpEntry({cli}: Call): Promise<number> {
	const {helpRequested} = await import('./help.js');
	process.stdout.write(`${helpRequested(cli.input, cli.flags)}\n`);
	return EXIT.ok;
}

export async function completionEntry({args}: Call): Promise<number> {
	const {runCompletionCommand} = await import('../commands/completion.js');
	return runCompletionCommand(args, process.stdout);
}

export async function analyzeEntry({cli, settings, json}: SettledCall): Promise<number> {
	if (cli.flags.markdown && json) throw new UsageError('--json and --markdown cannot be used together');
	const {runAnalyzeCommand} = await import('../commands/analyze.js');
	return runAnalyzeCommand({
		inputs: cli.input,
		settings,
		format: json ? 'json' : cli.flags.markdown ? 'markdown' : 'text',
		plot: typeof cli.flags.plot === 'string' && cli.flags.plot !== '' ? cli.flags.plot : null,
		failOnBreach: Boolean(cli.flags.failOnBreach),
		host: typeof cli.flags.host === 'string' ? cli.flags.host : null,
		stdout: process.stdout,
		stderr: process.stderr,
		columns: process.stdout.columns,
	});
}

export async function ranksEntry({cli, args, settings, selector, json}: SettledCall): Promise<number> {
	if (args.length > 1) throw new UsageError(`ranks takes at most one RUN_DIR (got ${args.join(' ')})`);
	const {runRanksCommand} = await import('../commands/ranks.js');
	return runRanksCommand({
		runDir: args[0] ?? null,
		settings,
		selector,
		// A scheduler's job flag picks that job's ranks as --job J does.
		job: jobFromFlag(cli.flags.job) ?? flaggedJob(cli.flags)?.jobId ?? null,
		scheduledJob: flaggedJob(cli.flags),
		json,
		stdout: process.stdout,
		stderr: process.stderr,
		columns: process.stdout.columns,
		// Piped or redirected, a command line is read whole (grep, a file): only a terminal's width cuts it.
		wide: Boolean(cli.flags.wide) || !process.stdout.isTTY,
	});
}

export async function checkpointsEntry({cli, args, settings, json}: SettledCall): Promise<number> {
	if (args.length > 1) throw new UsageError(`checkpoints takes at most one RUN_DIR (got ${args.join(' ')})`);
	const {runCheckpointsCommand} = await import('../commands/checkpoints.js');
	let runDir = args[0] ?? '.';
	const job = args[0] === undefined ? flaggedJob(cli.flags) : null;
	const entry = job === null ? null : schedulerEntry(job.kind);
	if (job !== null && entry?.workDir) {
		// The scheduler's job's own directory, said on stderr so that --json stays clean.
		runDir = await entry.workDir(job.jobId);
		process.stderr.write(`traintop: RUN_DIR: ${entry.name} job ${job.jobId}'s working directory ${runDir}\n`);
	}
	return runCheckpointsCommand({runDir, settings, json, stdout: process.stdout});
}

export async function preflightEntry({cli, args, settings, json}: SettledCall): Promise<number> {
	const {runPreflightCommand} = await import('../commands/preflight.js');
	return runPreflightCommand({
		args,
		flags: cli.flags,
		settings,
		json,
		stdout: process.stdout,
		stderr: process.stderr,
		columns: process.stdout.columns,
	});
}

export async function signalEntry({cli, args, settings, given, selector, json}: SettledCall): Promise<number> {
	if (args.length > 2) throw new UsageError(`signal takes an action and an optional RUN_DIR (got ${args.join(' ')})`);
	const {runSignalCommand} = await import('../commands/signal.js');
	// Many nodes: through a `traintop agent` on each (--hosts, --cluster, a scheduler's job flag with --agents).
	let agents = null;
	const {fleetConnections, wantsAgents} = await import('../commands/fleet-connections.js');
	if (wantsAgents(cli.flags)) {
		const {runDirFrom} = await import('../commands/run-dir.js');
		agents = await fleetConnections(cli.flags, given, settings, runDirFrom(args.slice(1)));
	}
	return runSignalCommand({
		agents,
		settings,
		selector,
		job: jobFromFlag(cli.flags.job),
		// Only as given: inside a scheduler's job the ranks beside traintop are the job already (no scheduler route).
		scheduledJob: flaggedJob(cli.flags),
		batch: Boolean(cli.flags.batch),
		action: args[0],
		ranks: ranksFromFlag(cli.flags.rank),
		yes: Boolean(cli.flags.yes),
		force: Boolean(cli.flags.force),
		json,
		interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY),
		wait: Boolean(cli.flags.wait),
		runDir: args[1] ?? null,
		stdin: process.stdin,
		stdout: process.stdout,
		stderr: process.stderr,
	});
}

export async function drillEntry({cli, args, settings, selector, json}: SettledCall): Promise<number> {
	if (args.length > 1) throw new UsageError(`drill takes at most one RUN_DIR (got ${args.join(' ')})`);
	// A drill never forces, never picks ranks (the save is the whole job's) and signals from this node only.
	for (const [flag, given] of [
		['--force', cli.flags.force],
		['--rank', cli.flags.rank],
		['--batch', cli.flags.batch],
		['--hosts', cli.flags.hosts],
		['--cluster', cli.flags.cluster],
		['--agents', cli.flags.agents],
	] as const)
		if (given !== undefined && given !== false)
			throw new UsageError(
				`${flag}: not for a drill (it sends the save signal to every rank of one job, never forced)`,
			);
	const {runDrillCommand} = await import('../commands/drill.js');
	return runDrillCommand({
		settings,
		selector,
		job: jobFromFlag(cli.flags.job),
		// A scheduler's job flag picks its job as for `signal` (its route, gated the same way).
		scheduledJob: flaggedJob(cli.flags),
		runDir: args[0] ?? null,
		readiness: {graceS: settings.grace, maxWorkAtRiskS: settings.maxWorkAtRisk},
		yes: Boolean(cli.flags.yes),
		json,
		interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY),
		stdin: process.stdin,
		stdout: process.stdout,
		stderr: process.stderr,
	});
}

export async function stacksEntry({cli, args, settings, selector, json}: SettledCall): Promise<number> {
	if (args.length > 1) throw new UsageError(`stacks takes at most one RUN_DIR (got ${args.join(' ')})`);
	const {runStacksCommand} = await import('../commands/stacks.js');
	return runStacksCommand({
		settings,
		selector,
		// A scheduler's job flag picks that job's ranks as --job J does (as for ranks).
		job: jobFromFlag(cli.flags.job) ?? flaggedJob(cli.flags)?.jobId ?? null,
		runDir: args[0] ?? null,
		json,
		stdout: process.stdout,
		stderr: process.stderr,
	});
}

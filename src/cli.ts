#!/usr/bin/env node
import {setFlagsFromString} from 'node:v8';
import {parseArgv} from './cli/argv.js';
import {loadSettings} from './config/load.js';
import {jobFromFlag, ranksFromFlag, selectorFromFlags, slurmJobFromFlags} from './config/selection.js';
import {EXIT, UsageError} from './core/errors.js';
import {printable} from './format/printable.js';
import {endQuietlyIfTerminalDies} from './system/dead-terminal.js';

// Named for what it is: `ps`, /proc/PID/comm and another traintop's rank discovery see "traintop …", not
// "node …/dist/cli.js" (a traintop under `srun --overlap` carries SLURM_PROCID and must never pass for a rank).
process.title = ['traintop', ...process.argv.slice(2)].join(' ');
// SIGUSR1 to a Node process opens an inspector (a debug port on 127.0.0.1:9229) unless a listener is installed.
// A stray save signal must not turn a monitor into a debug port: listen, and do nothing.
process.on('SIGUSR1', () => {});
// A closed terminal (window, tmux, ssh) ends traintop like q does, exit 0: never a crash on EIO at exit.
endQuietlyIfTerminalDies();

// React's development build checks and warns on every render (several times slower); the TUI is
// imported only after this line, so it gets the production build unless the user asked otherwise.
process.env.NODE_ENV ??= 'production';

// argv → validated settings → one mode. The only file that calls process.exit.
// Each mode is imported when chosen: `--analyze` of a big log should not pay for (or hold in
// memory) the monitor's readers and watchers.

/**
 * The monitor (TUI, headless, demo) runs for days, a sample and a frame a second. V8 doubles its young generation
 * whenever a scavenge finds much alive, up to 2 × 16 MB kept resident; here it stays at its first size (1 MB a
 * semi-space). Measured on 8 GPUs + 8 ranks + 50 checkpoints at 1 s: the TUI at 120×40 peaks at 107 MB rather
 * than 139 (4 min, same run) for about +0.15 % of a core; headless at 69 MB rather than 79, CPU unchanged.
 * Loading the monitor's ~800 modules is the peak of its life: for its first seconds V8 also favours size over
 * speed (its heap grows by smaller steps), which takes the TUI's start-up peak from ~108 to ~95 MB; left on, it
 * would cost ~0.4 % of a core for good. V8 reads both at each decision, so they work set here, before the modules
 * load; `--max-semi-space-size` would have to be on node's command line, which a shebang cannot portably give.
 * `--analyze` keeps V8's defaults: it allocates hard for seconds, not a little for days.
 */
function monitorHeap(): void {
	setFlagsFromString('--semi-space-growth-factor=1');
	setFlagsFromString('--optimize-for-size');
	setTimeout(() => setFlagsFromString('--no-optimize-for-size'), STARTUP_MS).unref();
}
const STARTUP_MS = 10_000;

async function main(): Promise<number> {
	// A closed terminal or log pipe must not crash the monitor through its diagnostics.
	process.stderr.on('error', () => {});
	const cli = parseArgv(process.argv.slice(2), import.meta);
	const [command, ...args] = cli.input;
	// --help, -h, `help COMMAND` and --version answer before anything else: no setting is read, no process
	// started, no signal sent (`signal save --help --pid P` once signalled P).
	const analyze = Boolean(cli.flags.analyze);
	if (cli.flags.help || cli.flags.version || (command === 'help' && !analyze)) {
		const {helpRequested} = await import('./cli/help.js');
		process.stdout.write(`${helpRequested(cli.input, cli.flags)}\n`);
		return EXIT.ok;
	}
	if (command === 'completion' && !analyze) {
		const {runCompletionCommand} = await import('./commands/completion.js');
		return runCompletionCommand(args, process.stdout);
	}
	const {settings, given} = await loadSettings(cli.flags);
	const selector = selectorFromFlags(cli.flags);
	const json = Boolean(cli.flags.json);

	if (analyze) {
		if (cli.flags.markdown && json) throw new UsageError('--json and --markdown cannot be used together');
		const {runAnalyzeCommand} = await import('./commands/analyze.js');
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
	// --host picks a host of the logs --analyze reads; alone, a typo for --hosts would quietly watch this machine.
	if (cli.flags.host !== undefined)
		throw new UsageError('--host NAME goes with --analyze (to watch nodes: --hosts A,B,…)');
	if (command === 'demo') {
		if (args.length > 0) throw new UsageError(`demo takes no arguments (got ${args.join(' ')})`);
		monitorHeap();
		const {runDemoCommand} = await import('./commands/demo.js');
		return runDemoCommand({
			settings,
			flags: cli.flags,
			json,
			stderr: process.stderr,
			exitNow: () => process.exit(EXIT.ok),
		});
	}
	if (command === 'ranks') {
		if (args.length > 0) throw new UsageError(`ranks takes no arguments (got ${args.join(' ')})`);
		const {runRanksCommand} = await import('./commands/ranks.js');
		return runRanksCommand({
			settings,
			selector,
			// --slurm-job J picks that job's ranks as --job J does.
			job:
				jobFromFlag(cli.flags.job) ?? (cli.flags.slurmJob === undefined ? null : slurmJobFromFlags(cli.flags.slurmJob)),
			slurmJob: cli.flags.slurmJob === undefined ? null : slurmJobFromFlags(cli.flags.slurmJob),
			json,
			stdout: process.stdout,
			stderr: process.stderr,
			columns: process.stdout.columns,
			// Piped or redirected, a command line is read whole (grep, a file): only a terminal's width cuts it.
			wide: Boolean(cli.flags.wide) || !process.stdout.isTTY,
		});
	}
	if (command === 'checkpoints') {
		if (args.length > 1) throw new UsageError(`checkpoints takes at most one RUN_DIR (got ${args.join(' ')})`);
		const {runCheckpointsCommand} = await import('./commands/checkpoints.js');
		let runDir = args[0] ?? '.';
		if (args[0] === undefined && cli.flags.slurmJob !== undefined) {
			// The SLURM job's own directory, said on stderr so that --json stays clean.
			const jobId = slurmJobFromFlags(cli.flags.slurmJob) ?? '';
			const {jobWorkDir} = await import('./slurm/job-work-dir.js');
			runDir = await jobWorkDir(jobId);
			process.stderr.write(`traintop: RUN_DIR: SLURM job ${jobId}'s working directory ${runDir}\n`);
		}
		return runCheckpointsCommand({runDir, settings, json, stdout: process.stdout});
	}
	if (command === 'preflight') {
		const {runPreflightCommand} = await import('./commands/preflight.js');
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
	if (command === 'agent') {
		if (args.length > 1) throw new UsageError(`agent takes at most one RUN_DIR (got ${args.join(' ')})`);
		monitorHeap();
		const {runAgentCommand} = await import('./commands/agent.js');
		return runAgentCommand({
			input: args,
			flags: cli.flags,
			settings,
			selector,
			exitNow: () => process.exit(EXIT.ok),
		});
	}
	if (command === 'signal') {
		if (args.length > 2) throw new UsageError(`signal takes an action and an optional RUN_DIR (got ${args.join(' ')})`);
		const {runSignalCommand} = await import('./commands/signal.js');
		// Many nodes: through a `traintop agent` on each (--hosts, --cluster, --slurm-job J --agents).
		let agents = null;
		if (cli.flags.hosts !== undefined || cli.flags.cluster !== undefined || (cli.flags.agents && cli.flags.slurmJob)) {
			const {fleetConnections} = await import('./commands/fleet-connections.js');
			const {runDirFrom} = await import('./commands/run-dir.js');
			agents = await fleetConnections(cli.flags, given, settings, runDirFrom(args.slice(1)));
		}
		return runSignalCommand({
			agents,
			settings,
			selector,
			job: jobFromFlag(cli.flags.job),
			// Only as given: inside an allocation the ranks beside traintop are the job already (no scancel route).
			slurmJob: cli.flags.slurmJob === undefined ? null : slurmJobFromFlags(cli.flags.slurmJob),
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
	// The monitor: a first word within a typo of a command (`sginal`) is refused, not waited for as a RUN_DIR.
	const {checkMistypedCommand} = await import('./cli/suggest.js');
	checkMistypedCommand(command);
	monitorHeap();
	// One node or many (--hosts, --cluster, --slurm-job J --agents): the monitor's session has the nodes.
	const {runMonitor} = await import('./commands/monitor.js');
	return runMonitor({
		input: cli.input,
		flags: cli.flags,
		settings,
		given,
		json,
		selector,
		exitNow: () => process.exit(EXIT.ok),
	});
}

try {
	process.exitCode = await main();
} catch (error) {
	if (error instanceof UsageError) {
		// A usage message may quote a flag's value, a file's name or its contents' position: text from outside,
		// shown inert like every other (format/printable.ts); its own line breaks are kept.
		process.stderr.write(`traintop: ${error.message.split('\n').map(printable).join('\n')}\n`);
		process.exitCode = EXIT.usage;
	} else {
		process.stderr.write(`traintop: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exitCode = EXIT.failure;
	}
}
// Leftover handles (a stdout pipe nobody reads) must not keep a finished monitor alive — but what was
// written must get out first: process.exit() drops output still queued on a pipe (a large --json
// report was cut at 214 KiB). A write's callback runs once everything before it has been flushed.
if (process.stdout.writable && !process.stdout.destroyed) {
	// A reader that went away (EPIPE) or never reads must neither crash nor hold traintop forever.
	process.stdout.on('error', () => {});
	await Promise.race([
		new Promise(resolve => process.stdout.write('', resolve)),
		new Promise(resolve => setTimeout(resolve, 5000).unref()),
	]);
}
process.exit();

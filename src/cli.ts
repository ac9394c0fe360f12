#!/usr/bin/env node
import {hostname} from 'node:os';
import path from 'node:path';
import meow from 'meow';
import {CheckpointWatcher} from './checkpoints/watch.js';
import {runAnalyzeCommand} from './commands/analyze.js';
import {existingRunDir, runCheckpointsCommand} from './commands/checkpoints.js';
import {runRanksCommand} from './commands/ranks.js';
import {runSignalCommand} from './commands/signal.js';
import {loadSettings} from './config/load.js';
import {ranksFromFlag, selectorFromFlags} from './config/selection.js';
import {helpText, OPTIONS} from './config/options.js';
import {DEFAULT_LOG_FILE_NAME, type Settings} from './config/schema.js';
import {EXIT, UsageError} from './core/errors.js';
import {runHeadless} from './headless/run.js';
import {RankSampler} from './ranks/discover.js';
import type {RankSelector} from './ranks/tree.js';
import {readHostMemory} from './system/memory.js';
import {procReader} from './system/procfs.js';
import {NvidiaSmiReader} from './system/nvidia-smi.js';

// argv → validated settings → one mode. The only file that calls process.exit.

type MeowFlagType = 'string' | 'boolean' | 'number';

function meowFlags(): Record<string, {type: MeowFlagType}> {
	const flags: Record<string, {type: MeowFlagType}> = {};
	for (const option of OPTIONS) {
		if (option.name === 'help' || option.name === 'version') continue;
		// Numbers arrive as strings so a bad value can be quoted back as the user typed it.
		flags[option.name] = {type: option.kind === 'boolean' ? 'boolean' : 'string'};
	}
	return flags;
}

function runDirFrom(input: readonly string[]): string | null {
	if (input.length > 1) {
		throw new UsageError(`expected at most one RUN_DIR, got ${input.length}: ${input.join(' ')}`);
	}
	const runDir = input[0];
	return runDir === undefined ? null : existingRunDir(runDir);
}

function logPathFrom(settings: Settings, runDir: string | null): string | null {
	if (!settings.log) return null;
	return settings.logFile ?? path.join(runDir ?? '.', DEFAULT_LOG_FILE_NAME);
}

async function main(): Promise<number> {
	// A closed terminal or log pipe must not crash the monitor through its diagnostics.
	process.stderr.on('error', () => {});
	const cli = meow(helpText(), {
		importMeta: import.meta,
		description: false,
		flags: meowFlags(),
		allowUnknownFlags: false,
		// Absent booleans stay absent, so a config file's `"log": false` is not overridden by a default.
		booleanDefault: undefined,
	});
	const [command, ...args] = cli.input;
	const {settings} = await loadSettings(cli.flags);
	const selector = selectorFromFlags(cli.flags);
	const json = Boolean(cli.flags['json']);

	if (cli.flags['analyze']) {
		if (cli.flags['markdown'] && json) throw new UsageError('--json and --markdown cannot be used together');
		return runAnalyzeCommand({
			inputs: cli.input,
			settings,
			format: json ? 'json' : cli.flags['markdown'] ? 'markdown' : 'text',
			plot: typeof cli.flags['plot'] === 'string' && cli.flags['plot'] !== '' ? cli.flags['plot'] : null,
			failOnBreach: Boolean(cli.flags['failOnBreach']),
			stdout: process.stdout,
			stderr: process.stderr,
			columns: process.stdout.columns,
		});
	}
	if (command === 'ranks') {
		if (args.length > 0) throw new UsageError(`ranks takes no arguments (got ${args.join(' ')})`);
		return runRanksCommand({settings, selector, json, stdout: process.stdout, columns: process.stdout.columns});
	}
	if (command === 'checkpoints') {
		if (args.length > 1) throw new UsageError(`checkpoints takes at most one RUN_DIR (got ${args.join(' ')})`);
		return runCheckpointsCommand({runDir: args[0] ?? '.', settings, json, stdout: process.stdout});
	}
	if (command === 'signal') {
		if (args.length > 2) throw new UsageError(`signal takes an action and an optional RUN_DIR (got ${args.join(' ')})`);
		return runSignalCommand({
			settings,
			selector,
			action: args[0],
			ranks: ranksFromFlag(cli.flags['rank']),
			yes: Boolean(cli.flags['yes']),
			force: Boolean(cli.flags['force']),
			json,
			interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY),
			wait: Boolean(cli.flags['wait']),
			runDir: args[1] ?? null,
			stdin: process.stdin,
			stdout: process.stdout,
			stderr: process.stderr,
		});
	}
	return runMonitor(cli.input, cli.flags, settings, json, selector);
}

/** The monitor: headless today (the TUI comes later), until a signal or a closed pipe stops it. */
async function runMonitor(
	input: readonly string[],
	flags: Readonly<Record<string, unknown>>,
	settings: Settings,
	json: boolean,
	selector: RankSelector,
): Promise<number> {
	const runDir = runDirFrom(input);
	const logPath = logPathFrom(settings, runDir);

	if (!flags['headless'] && process.stdout.isTTY) {
		process.stderr.write('traintop: the interactive TUI is not built yet; running headless (--headless)\n');
	}

	const gpu = new NvidiaSmiReader({
		command: settings.nvidiaSmi,
		intervalMs: settings.interval * 1000,
		processIntervalMs: settings.gpuProcessInterval * 1000,
	});
	// However traintop exits, no nvidia-smi may outlive it.
	process.on('exit', () => gpu.killNow());

	const stop = new AbortController();
	let signals = 0;
	const onSignal = () => {
		// A second Ctrl-C means "now": the exit hook still kills nvidia-smi.
		if (++signals > 1) process.exit(EXIT.ok);
		stop.abort();
	};
	for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(name, onSignal);

	const ranks = new RankSampler({
		proc: procReader(),
		selector,
		host: hostname(),
		stallAfterMs: settings.stallAfter * 1000,
	});
	// With a RUN_DIR the snapshot carries its checkpoints; watching starts before sampling.
	const checkpoints = runDir
		? new CheckpointWatcher({
				runDir: path.resolve(runDir),
				keep: settings.keep,
				poll: settings.poll > 0 ? {intervalMs: settings.poll * 1000} : null,
			})
		: null;
	await checkpoints?.start();
	gpu.start();
	try {
		await runHeadless({
			settings,
			logPath,
			json,
			sources: {
				readMemory: readHostMemory,
				gpu,
				readRanks: async gpuProcesses => {
					const set = await ranks.sample(gpuProcesses);
					// Headless uses per-process GPU memory only for the ranks' GPU column.
					gpu.setProcessQueries(set.ranks.length > 0);
					return set;
				},
				...(checkpoints ? {checkpoints} : {}),
			},
			stdout: process.stdout,
			stderr: process.stderr,
			signal: stop.signal,
		});
	} finally {
		await Promise.all([gpu.stop(), checkpoints?.stop()]);
	}
	return EXIT.ok;
}

try {
	process.exitCode = await main();
} catch (error) {
	if (error instanceof UsageError) {
		process.stderr.write(`traintop: ${error.message}\n`);
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

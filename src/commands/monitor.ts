import {hostname} from 'node:os';
import path from 'node:path';
import {CheckpointWatcher} from '../checkpoints/watch.js';
import {DEFAULT_LOG_FILE_NAME, type Settings} from '../config/schema.js';
import {EXIT, UsageError} from '../core/errors.js';
import type {MonitorSources} from '../core/monitor.js';
import {runHeadless} from '../headless/run.js';
import {RankSampler} from '../ranks/discover.js';
import type {RankSelector} from '../ranks/tree.js';
import {readHostMemory} from '../system/memory.js';
import {NvidiaSmiReader} from '../system/nvidia-smi.js';
import {procReader} from '../system/procfs.js';
import {existingRunDir} from './checkpoints.js';

function runDirFrom(input: readonly string[]): string | null {
	if (input.length > 1) {
		throw new UsageError(`expected at most one RUN_DIR, got ${input.length}: ${input.join(' ')}`);
	}
	const runDir = input[0];
	return runDir === undefined ? null : existingRunDir(runDir);
}

/** Where the memory log goes: --log-file, else RUN_DIR (or .)/traintop-memory.jsonl; null with --no-log. */
export function logPathFrom(settings: Settings, runDir: string | null): string | null {
	if (!settings.log) return null;
	return settings.logFile ?? path.join(runDir ?? '.', DEFAULT_LOG_FILE_NAME);
}

export interface MonitorOptions {
	/** Positional arguments: at most one RUN_DIR. */
	readonly input: readonly string[];
	readonly flags: Readonly<Record<string, unknown>>;
	readonly settings: Settings;
	readonly json: boolean;
	readonly selector: RankSelector;
	/** Ends the process at once (cli.ts owns process.exit): a second Ctrl-C means "now". */
	readonly exitNow: () => void;
}

/**
 * The monitor, until q, a signal or a closed pipe stops it: the TUI on a terminal, else (or with
 * --headless / --json) the headless view. Both write the memory log.
 */
export async function runMonitor({input, flags, settings, json, selector, exitNow}: MonitorOptions): Promise<number> {
	const runDir = runDirFrom(input);
	const logPath = logPathFrom(settings, runDir);

	const tui = !flags['headless'] && !json && process.stdout.isTTY === true && process.stdin.isTTY === true;

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
		if (++signals > 1) exitNow();
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
	const sources: MonitorSources = {
		readMemory: readHostMemory,
		gpu,
		readRanks: async gpuProcesses => {
			const set = await ranks.sample(gpuProcesses);
			// Per-process GPU memory is wanted only for the ranks' GPU column.
			gpu.setProcessQueries(set.ranks.length > 0);
			return set;
		},
		...(checkpoints ? {checkpoints} : {}),
	};
	try {
		if (tui) {
			const {runTuiMode} = await import('../ui/tui-mode.js');
			await runTuiMode({settings, logPath, sources, checkpoints, signal: stop.signal});
		} else {
			await runHeadless({settings, logPath, json, sources, stdout: process.stdout, stderr: process.stderr, signal: stop.signal});
		}
	} finally {
		await Promise.all([gpu.stop(), checkpoints?.stop()]);
	}
	return EXIT.ok;
}

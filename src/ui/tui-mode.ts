import {hostname} from 'node:os';
import type {CheckpointWatcher} from '../checkpoints/watch.js';
import type {Settings} from '../config/schema.js';
import {monitorOptions} from '../config/thresholds.js';
import {Monitor, type MonitorSources} from '../core/monitor.js';
import {MemoryLogRecorder} from '../memlog/recorder.js';
import {procReader} from '../system/procfs.js';
import {tuiActions} from './actions.js';
import {runTui} from './run-tui.js';

export interface TuiModeOptions {
	readonly settings: Settings;
	readonly logPath: string | null;
	readonly sources: MonitorSources;
	readonly checkpoints: CheckpointWatcher | null;
	readonly signal: AbortSignal;
}

/** The interactive monitor: the Monitor, the memory log and the TUI over them, until q or a signal. */
export async function runTuiMode({settings, logPath, sources, checkpoints, signal}: TuiModeOptions): Promise<void> {
	let logTrouble: string | null = null;
	// Opened before the screen changes, so an unwritable log path is a plain error message (exit 2).
	const recorder = new MemoryLogRecorder({
		logPath,
		logIntervalMs: settings.logInterval * 1000,
		sampleIntervalMs: settings.interval * 1000,
		onLogTrouble: message => {
			logTrouble = message;
		},
	});
	const monitor = new Monitor(monitorOptions(settings, sources, hostname()));
	const unsubscribe = monitor.subscribe(snapshot => recorder.add(snapshot));
	monitor.start();
	try {
		await runTui({
			store: monitor,
			actions: {...tuiActions({settings, proc: procReader(), checkpoints, logPath}), logTrouble: () => logTrouble},
			readonly: settings.readonly,
			host: hostname(),
			signal,
		});
	} finally {
		monitor.stop();
		unsubscribe();
		recorder.close();
	}
	if (logTrouble) process.stderr.write(`traintop: ${logTrouble}\n`);
	if (recorder.path) process.stderr.write(`traintop: memory log ${recorder.path}\n`);
}

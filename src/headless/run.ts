import {hostname} from 'node:os';
import type {Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import {Monitor, type MonitorSources} from '../core/monitor.js';
import type {CheckpointIndex, GpuState, RankSet, Snapshot} from '../core/types.js';
import {MemoryLogRecorder} from '../memlog/recorder.js';
import {describeCheckpointChanges, describeRankChanges, formatAlertLine, formatGpuStateLine, formatStatusLine, localTime} from './format.js';
import {monitorOptions} from '../config/thresholds.js';

export interface HeadlessOptions {
	readonly settings: Settings;
	/** Where the memory log goes; null with --no-log. */
	readonly logPath: string | null;
	/** --json: records on stdout instead of status lines. */
	readonly json: boolean;
	readonly sources: MonitorSources;
	readonly stdout: Writable;
	readonly stderr: Writable;
	/** Aborted on SIGINT/SIGTERM/SIGHUP: the current window is flushed as a final record. */
	readonly signal: AbortSignal;
	readonly host?: string;
}

/** What identifies a GPU reader state for reporting: status, the devices' names, and its message. */
function gpuStateKey(state: GpuState): string {
	switch (state.status) {
		case 'starting':
			return 'starting';
		case 'ok':
			return `ok|${state.gpus.map(g => `${g.index}:${g.name}`).join(',')}|${state.warning ?? ''}`;
		case 'absent':
			return `absent|${state.reason}`;
		case 'error':
			return `error|${state.message}`;
	}
}

/**
 * The headless view: a status line (or a JSON record) per log interval on stdout, a line per level
 * change on stderr, and one JSON line per interval appended to the memory log. Resolves when the
 * signal aborts, after the partial window has been written.
 */
export async function runHeadless(options: HeadlessOptions): Promise<void> {
	const {settings, stdout, stderr} = options;
	const note = (text: string) => stderr.write(`traintop: ${text}\n`);
	let stdoutOpen = true;
	// Opens the log before sampling, so an unwritable path fails at once (exit 2), not 30 s later.
	const recorder = new MemoryLogRecorder({
		logPath: options.logPath,
		logIntervalMs: settings.logInterval * 1000,
		sampleIntervalMs: settings.interval * 1000,
		onLogTrouble: message => note(message ?? `memory log ${recorder.path} is writable again`),
		onRecord: (record, snapshot) => {
			if (!stdoutOpen) return;
			stdout.write(options.json ? `${JSON.stringify(record)}\n` : `${formatStatusLine(record, snapshot.metrics)}\n`);
		},
	});
	const monitor = new Monitor(monitorOptions(settings, options.sources, options.host ?? hostname()));

	note(
		`watching ${options.host ?? hostname()} every ${settings.interval} s; ` +
			`thresholds ram ${settings.ramThreshold}% gpu ${settings.gpuThreshold}% swap ${settings.swapThreshold}%; ` +
			(recorder.path ? `memory log ${recorder.path} (a record every ${settings.logInterval} s)` : 'memory log off (--no-log)'),
	);

	let lastGpuKey: string | null = null;
	let lastRanks: RankSet | null = null;
	let lastCheckpoints: CheckpointIndex | null = null;
	const onSnapshot = (snapshot: Snapshot) => {
		if (snapshot.checkpoints && snapshot.checkpoints !== lastCheckpoints) {
			for (const line of describeCheckpointChanges(lastCheckpoints, snapshot.checkpoints)) note(`${localTime(snapshot.time)} ${line}`);
			lastCheckpoints = snapshot.checkpoints;
		}
		if (snapshot.ranks && snapshot.ranks !== lastRanks) {
			for (const line of describeRankChanges(lastRanks, snapshot.ranks)) note(`${localTime(snapshot.time)} ${line}`);
			lastRanks = snapshot.ranks;
		}
		// One line per change of the reader's state; a sample or a retry countdown is not a change.
		const gpuKey = gpuStateKey(snapshot.gpu);
		if (gpuKey !== lastGpuKey) {
			const gpuLine = formatGpuStateLine(snapshot.gpu, snapshot.time);
			if (gpuLine) note(`${localTime(snapshot.time)} ${gpuLine}`);
		}
		lastGpuKey = gpuKey;
		if (snapshot.memoryError) note(`${localTime(snapshot.time)} cannot read memory: ${snapshot.memoryError}`);
		for (const alert of snapshot.newAlerts) {
			stderr.write(`${formatAlertLine(alert, settings.warnMargin)}\n`);
		}
		recorder.add(snapshot);
	};

	// `traintop --headless --json | head` closes our stdout: like any Unix filter, stop then
	// (after writing the final record to the log), instead of monitoring for nobody.
	let stopOnClosedPipe = () => {};
	const onStdoutError = (error: NodeJS.ErrnoException) => {
		stdoutOpen = false;
		if (error.code === 'EPIPE') stopOnClosedPipe();
	};
	stdout.on('error', onStdoutError);

	const unsubscribe = monitor.subscribe(onSnapshot);
	monitor.start();
	try {
		await new Promise<void>(resolve => {
			stopOnClosedPipe = resolve;
			if (options.signal.aborted) resolve();
			else options.signal.addEventListener('abort', () => resolve(), {once: true});
		});
	} finally {
		monitor.stop();
		unsubscribe();
		recorder.close();
		stdout.off('error', onStdoutError);
	}
}

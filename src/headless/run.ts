import type {Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import type {GpuState, RankSet, Snapshot} from '../core/types.js';
import type {Session} from '../session/session.js';
import {formatAge} from '../format/duration.js';
import {localTime} from '../format/time.js';
import {watchPauses} from '../system/pause-watch.js';
import {formatThreshold} from '../format/units.js';
import {
	describeRanksFound,
	eventRecord,
	formatAlertLine,
	formatEventLine,
	formatGpuStateLine,
	formatStatusLine,
	startRecord,
} from './format.js';
import {SlurmReport} from '../slurm/views/headless-report.js';
import {stdoutReader} from './stdout-reader.js';

export interface HeadlessOptions {
	/** --json: records (and the job's events, one object each) on stdout instead of status lines. */
	readonly json: boolean;
	readonly stdout: Writable;
	readonly stderr: Writable;
	/** Aborted on SIGINT/SIGTERM/SIGHUP: the view stops; the session's close() writes the last window. */
	readonly signal: AbortSignal;
}

/** `ram 85% gpu 90% (GPU-8f2c… 60%) swap 50%`: a GPU with a threshold of its own is named by its uuid. */
function thresholdWords(settings: Settings): string {
	const own = [...settings.gpuThresholds].map(([uuid, percent]) => `${uuid} ${formatThreshold(percent)}`);
	const gpu = `gpu ${settings.gpuThreshold}%${own.length === 0 ? '' : ` (${own.join(', ')})`}`;
	return `ram ${settings.ramThreshold}% ${gpu} swap ${settings.swapThreshold}%`;
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
 * The headless view of a session: a status line (or a JSON record) per log interval on stdout, a
 * line per level change and per event on stderr. It only prints: the session samples and writes the
 * memory log. Resolves when the signal aborts or stdout's reader goes away.
 */
export async function runHeadless(session: Session, options: HeadlessOptions): Promise<void> {
	const {settings, recorder, monitor} = session;
	const {stdout, stderr} = options;
	const note = (text: string) => stderr.write(`traintop: ${text}\n`);
	const reader = stdoutReader(stdout, options.signal);

	note(
		`watching ${session.host} every ${settings.interval} s; ` +
			`thresholds ${thresholdWords(settings)}; ` +
			(recorder.path
				? `memory log ${recorder.path} (a record every ${settings.logInterval} s)`
				: 'memory log off (--no-log)'),
	);
	// --json's first line says which shape the stream has; the records after it are the memory log's own format.
	if (options.json && reader.open())
		stdout.write(`${JSON.stringify(startRecord({host: session.host, time: Date.now()}))}\n`);

	const offRecord = recorder.onRecord((record, snapshot) => {
		if (!reader.open()) return;
		stdout.write(options.json ? `${JSON.stringify(record)}\n` : `${formatStatusLine(record, snapshot.metrics)}\n`);
	});
	const offTrouble = recorder.trouble.subscribe(trouble =>
		note(trouble ?? `memory log ${recorder.path} is writable again`),
	);

	const slurmReport = new SlurmReport();
	let lastGpuKey: string | null = null;
	let lastRanks: RankSet | null = null;
	const onSnapshot = (snapshot: Snapshot) => {
		if (snapshot.ranks && snapshot.ranks !== lastRanks) {
			const found = describeRanksFound(lastRanks, snapshot.ranks);
			if (found) note(`${localTime(snapshot.time)} ${found}`);
			lastRanks = snapshot.ranks;
		}
		// The job's life (exits, ends, stops, stalls, saves, OVERDUE): a line each on stderr, and with --json an
		// object each on stdout between the records, as it happens rather than at the next record.
		for (const event of snapshot.events) {
			note(formatEventLine(event));
			if (options.json && reader.open()) stdout.write(`${JSON.stringify(eventRecord(event))}\n`);
		}
		// One line per change of the reader's state; a sample or a retry countdown is not a change.
		const gpuKey = gpuStateKey(snapshot.gpu);
		if (gpuKey !== lastGpuKey) {
			const gpuLine = formatGpuStateLine(snapshot.gpu, snapshot.time);
			if (gpuLine) note(`${localTime(snapshot.time)} ${gpuLine}`);
		}
		lastGpuKey = gpuKey;
		// The SLURM job: its state, restarts and the time left against the save cadence, when they change.
		const slurm = slurmReport.update(snapshot);
		for (const line of slurm.lines) note(line);
		if (options.json && reader.open()) for (const record of slurm.records) stdout.write(`${JSON.stringify(record)}\n`);
		if (snapshot.memoryError) note(`${localTime(snapshot.time)} cannot read memory: ${snapshot.memoryError}`);
		for (const alert of snapshot.newAlerts) {
			stderr.write(`${formatAlertLine(alert, settings.warnMargin)}\n`);
		}
	};

	const unsubscribe = monitor.subscribe(onSnapshot);
	// traintop stopped and continued (SIGSTOP, a suspended machine): the gap is its own, not nvidia-smi's.
	const offPauses = watchPauses(pause =>
		note(
			`${localTime(pause.at)} traintop itself was paused for ${formatAge(pause.ms / 1000)} (stopped — SIGSTOP, ` +
				'Ctrl-Z —, a suspended machine, or its event loop blocked): nothing was sampled meanwhile',
		),
	);
	session.start();
	try {
		await reader.stopped;
	} finally {
		// The session's close() flushes the last window: the final record still reaches stdout.
		await session.close();
		unsubscribe();
		offPauses();
		offRecord();
		offTrouble();
		reader.off();
	}
}

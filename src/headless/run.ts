import type {Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import type {JobEvent, Snapshot} from '../core/types.js';
import {nodeLabel} from '../fleet/node-words.js';
import {formatAge} from '../format/duration.js';
import {localTime} from '../format/time.js';
import {formatThreshold} from '../format/units.js';
import {freshestJobView, isJobLevelEvent, JobLevelEvents} from '../session/job-level.js';
import {schedulerEntry} from '../scheduler/registry.js';
import type {SchedulerView} from '../scheduler/view.js';
import type {Session} from '../session/session.js';
import {watchPauses} from '../system/pause-watch.js';
import {eventRecord, formatEventLine, startRecord} from './format.js';
import {printLinks} from './link-lines.js';
import {NodeLines} from './node-lines.js';
import {type Print, printTo} from './print.js';
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

/** The first line on stderr and, with --json, the stream's first object: what is watched and where the logs go. */
function sayStart(session: Session, print: Print): void {
	const {settings} = session;
	if (session.kind === 'local') {
		const {recorder} = session;
		print.note(
			`watching ${session.host} every ${settings.interval} s; thresholds ${thresholdWords(settings)}; ` +
				(recorder.path
					? `memory log ${recorder.path} (a record every ${settings.logInterval} s)`
					: 'memory log off (--no-log)'),
		);
		// --json's first line says which shape the stream has; the records after it are the memory log's own format.
		print.record(startRecord({host: session.host, time: Date.now()}));
		return;
	}
	const listed = session.fleet.current().nodes;
	const logs = session.logPattern ? `memory logs ${session.logPattern}` : 'memory logs off (--no-log)';
	const count = `${listed.length} node${listed.length === 1 ? '' : 's'}`;
	const which = listed.length > 0 ? `${count} (${listed.map(nodeLabel).join(', ')})` : "the job's nodes";
	print.note(`watching ${which} every ${settings.interval} s; ${logs}`);
	// `hosts` is empty until a scheduler's job's nodes are known.
	print.record(startRecord({hosts: listed.map(node => node.name), time: Date.now()}));
}

/**
 * The job as a whole, said once at the top however many nodes see it: the scheduler's view (state, restarts, time
 * left against the save cadence) from the freshest reading among the nodes' latest snapshots, and the job's own
 * events (requeued, resumed, ended), each once. With one node, that node's own.
 */
function jobLevel(print: Print, many: boolean) {
	const latest = new Map<string, Snapshot>();
	// Each scheduler's own reporter (scheduler/view.ts), made when its job is first seen.
	const reports = new Map<string, ReturnType<SchedulerView['report']> | null>();
	const reportOf = (kind: string) => {
		if (!reports.has(kind)) reports.set(kind, schedulerEntry(kind)?.view?.report() ?? null);
		return reports.get(kind) ?? null;
	};
	const once = new JobLevelEvents();
	return {
		/** Whether the node's view leaves this event to the job level (said here, once). */
		takes: (event: JobEvent): boolean => {
			if (!many || !isJobLevelEvent(event)) return false;
			if (once.first(event)) {
				print.note(formatEventLine(event));
				print.record(eventRecord(event));
			}
			return true;
		},
		update(node: string, snapshot: Snapshot): void {
			latest.set(node, snapshot);
			const job = freshestJobView(latest.values());
			const report = job?.scheduler ? reportOf(job.scheduler.kind) : null;
			if (job === null || report === null) return;
			const news = report.update(job);
			for (const line of news.lines) print.note(line);
			for (const record of news.records) print.record(record);
		},
	};
}

/**
 * The headless view of a session, one node or many: a status line (or a JSON record) per node per log interval on
 * stdout, a line per level change and per event on stderr (with many nodes, each names its node), the job's own
 * facts once at the top, and the agents' link changes. It only prints: the session samples and writes the logs.
 * Resolves when the signal aborts or stdout's reader goes away.
 */
export async function runHeadless(session: Session, options: HeadlessOptions): Promise<void> {
	const {settings} = session;
	const reader = stdoutReader(options.stdout, options.signal);
	const print = printTo(options.stdout, options.stderr, reader, options.json);
	const many = session.kind === 'agents';
	sayStart(session, print);

	const nodes = new Map<string, NodeLines>();
	const nodeLines = (node: string): NodeLines => {
		let lines = nodes.get(node);
		if (lines === undefined) {
			lines = new NodeLines(node, many, print, settings);
			nodes.set(node, lines);
			// A node heard of only now (srun over a job's nodes) has its log opened with its first snapshot.
			const recorder = session.recorders.get(node);
			if (recorder) lines.follow(recorder);
		}
		return lines;
	};
	for (const node of session.recorders.keys()) nodeLines(node);

	const job = jobLevel(print, many);
	const offSnapshots = session.onSnapshot((node, snapshot) => {
		const lines = nodeLines(node);
		lines.head(snapshot, job.takes);
		job.update(node, snapshot);
		lines.tail(snapshot);
	});
	const offLinks = session.kind === 'agents' ? printLinks(session, print) : () => {};
	// traintop stopped and continued (SIGSTOP, a suspended machine): the gap is its own, not a node's.
	const offPauses = watchPauses(pause =>
		print.note(
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
		offSnapshots();
		offLinks();
		offPauses();
		for (const lines of nodes.values()) lines.off();
		reader.off();
	}
}

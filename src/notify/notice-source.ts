import {atLeast} from '../core/level.js';
import type {Readiness} from '../core/readiness-types.js';
import type {Alert, JobEvent, Snapshot} from '../core/types.js';
import {jobGoneWords, levelChangeWords, levelClearWords, levelWords, readinessWords} from '../format/notice-text.js';
import {eventRecord} from '../headless/format.js';
import {verdictRecord} from '../headless/job-verdict-lines.js';
import {levelRecord} from '../headless/level-record.js';
import {READINESS_LINES} from '../headless/readiness-lines.js';
import {isJobLevelEvent} from '../session/job-level.js';
import type {Selection} from './selection.js';
import type {NoticeSignal} from './signal.js';
import {eventSubject, ONCE_KINDS, RAISES_CLEARED_BY, STATE_KINDS} from './event-pairs.js';

// One node's snapshot as signals for the episodes (notify/episodes.ts): its level changes (the Monitor's hysteresis
// already applied), its job events, its jobs' readiness turning not-ready and back, and its jobs gone. Pure: the
// previous snapshot of the same node is all the memory it needs. Each signal carries the object headless --json prints
// for it (with `host`) and its words.

export interface SourceContext {
	/** The node's name (the one-node session: its host). */
	readonly node: string;
	/** A session of many nodes: an event about the whole job is said once, not once per node. */
	readonly many: boolean;
	readonly selection: Selection;
	readonly warnMargin: number;
	/** Many nodes: true the first time any node reports this job-level event (session/job-level.ts JobLevelEvents). */
	readonly firstOfJob: (event: JobEvent) => boolean;
}

export function snapshotSignals(previous: Snapshot | null, snapshot: Snapshot, context: SourceContext): NoticeSignal[] {
	return [
		...snapshot.newAlerts.flatMap(alert => levelSignals(alert, context)),
		...snapshot.events.flatMap(event => eventSignals(event, context)),
		...readinessSignals(previous?.readiness, snapshot.readiness, snapshot.time, context),
		...goneJobSignals(previous, snapshot, context.node),
	];
}

/** A metric's change across the selected line raises at its new level; falling back under it clears. */
function levelSignals(alert: Alert, context: SourceContext): NoticeSignal[] {
	const line = context.selection.levelLine;
	if (line === null) return [];
	const {node, warnMargin} = context;
	const base = {key: `${node} level ${alert.metric}`, time: alert.time, host: node, job: null};
	const record = levelRecord(alert, warnMargin, node);
	if (atLeast(alert.to, line))
		return [{...base, kind: 'raise', level: alert.to, record, words: levelChangeWords(alert, warnMargin)}];
	if (atLeast(alert.from, line)) return [{...base, kind: 'clear', level: 'ok', record, words: levelClearWords(alert)}];
	return [];
}

/**
 * A job event as signals: a raise of a selected kind (never at level ok), the clears it is a pair of (whatever is
 * selected: an episode that was never opened ignores them), a once-kind told once.
 */
function eventSignals(event: JobEvent, context: SourceContext): NoticeSignal[] {
	const {node, selection} = context;
	const jobLevel = context.many && isJobLevelEvent(event);
	if (jobLevel && !context.firstOfJob(event)) return [];
	// A job-level event is the job's, whichever node said it first: its episode is the job's alone.
	const key = (kind: string) => `${jobLevel ? '' : `${node} `}${kind} ${eventSubject(kind, event)}`;
	const base = {
		time: event.time,
		host: node,
		job: event.job,
		record: {...eventRecord(event), host: node},
		words: levelWords(event.level, event.text),
	};
	const signals: NoticeSignal[] = [];
	for (const kind of RAISES_CLEARED_BY[event.kind] ?? [])
		signals.push({...base, kind: 'clear', key: key(kind), level: 'ok'});
	const state = STATE_KINDS.has(event.kind);
	if (state && event.level === 'ok') signals.push({...base, kind: 'clear', key: key(event.kind), level: 'ok'});
	if (!selection.raises(event.kind)) return signals;
	if (ONCE_KINDS.has(event.kind)) {
		// A rank that exited cleanly is the job's end, told by job-ended; one that died or failed is news of its own.
		if (event.kind !== 'rank-exited' || event.level !== 'ok')
			signals.push({...base, kind: 'once', key: key(event.kind), level: event.level});
	} else if (event.level !== 'ok') {
		signals.push({...base, kind: 'raise', key: key(event.kind), level: event.level});
	}
	return signals;
}

/** A job's readiness turning not-ready raises; anything else after it, or the job gone from the list, clears. */
function readinessSignals(
	previous: readonly Readiness[] | undefined,
	current: readonly Readiness[] | undefined,
	time: number,
	context: SourceContext,
): NoticeSignal[] {
	if (!context.selection.notReady || current === undefined || current === previous) return [];
	const {node} = context;
	const was = new Map((previous ?? []).map(r => [r.job, r.verdict]));
	const signal = (kind: 'raise' | 'clear', r: Readiness): NoticeSignal => ({
		kind,
		key: `${node} not-ready ${r.job}`,
		level: kind === 'raise' ? 'critical' : 'ok',
		time,
		host: node,
		job: r.job,
		record: verdictRecord(READINESS_LINES, r, time, node),
		words: readinessWords(r, time),
	});
	const signals: NoticeSignal[] = [];
	for (const r of current) {
		const before = was.get(r.job);
		if (r.verdict === 'not-ready' && before !== 'not-ready') signals.push(signal('raise', r));
		else if (r.verdict !== 'not-ready' && before === 'not-ready') signals.push(signal('clear', r));
	}
	const live = new Set(current.map(r => r.job));
	for (const r of previous ?? [])
		if (r.verdict === 'not-ready' && !live.has(r.job))
			signals.push({...signal('clear', r), record: null, words: jobGoneWords(r.job)});
	return signals;
}

/** Each job this node saw at its previous rank scan and not at this one: its open episodes begin to end. */
function goneJobSignals(previous: Snapshot | null, snapshot: Snapshot, node: string): NoticeSignal[] {
	const before = previous?.ranks?.jobs;
	const now = snapshot.ranks?.jobs;
	if (before === undefined || now === undefined || before === now) return [];
	const live = new Set(now.map(job => job.id));
	return before
		.filter(job => !live.has(job.id))
		.map(job => ({
			kind: 'job-gone',
			key: '',
			level: 'ok',
			time: snapshot.time,
			host: node,
			job: job.id,
			record: null,
			words: jobGoneWords(job.id),
		}));
}

import {exitLevel} from '../format/events.js';
import {
	jobEndedText,
	jobHaltedText,
	jobResumedText,
	overdueEventText,
	type RankChange,
	rankChangeText,
	rankExitedText,
	saveSeenText,
} from '../format/job-event-text.js';
import {
	processIdentity,
	type CheckpointIndex,
	type EndedJob,
	type Job,
	type JobEvent,
	type RankProcess,
	type RankSet,
} from './types.js';

// A job's life as events, from two consecutive samples: pure, so every rule has a table test. A state
// (stalled, stopped, overdue) is an event only where it changes; the sampler's hysteresis (ranks/stall.ts)
// keeps a bursty rank from flapping, and a whole job going quiet is one event, not one per rank. Which events happen,
// their codes and figures are decided here; their words are format/job-event-text.ts's.

const halted = (rank: RankProcess): boolean => rank.stalled || rank.stopped;

/** Every rank of the job is stalled or stopped (a job with no ranks left is not: its launcher is restarting them). */
function allHalted(job: Job | undefined): boolean {
	return job !== undefined && job.ranks.length > 0 && job.ranks.every(halted);
}

/** A job event names the rank when the job has only one (a lone process), else the job alone. */
function onlyRank(job: Job): {rank: number | null; pid: number | null} {
	const [only] = job.ranks;
	return job.ranks.length === 1 && only ? {rank: only.rank, pid: only.pid} : {rank: null, pid: null};
}

function rankEvent(
	rank: RankProcess,
	time: number,
	kind: JobEvent['kind'],
	level: JobEvent['level'],
	change: RankChange,
): JobEvent {
	return {
		time,
		kind,
		job: rank.job,
		rank: rank.rank,
		pid: rank.pid,
		level,
		text: rankChangeText(rank, change),
	};
}

/** One rank's own changes between two samples (same pid and start time); `was` undefined: first seen. */
function rankChanges(was: RankProcess | undefined, rank: RankProcess, time: number): JobEvent[] {
	const events: JobEvent[] = [];
	if (rank.stopped && !was?.stopped) events.push(rankEvent(rank, time, 'rank-stopped', 'warn', 'stopped'));
	if (rank.stalled && !was?.stalled) events.push(rankEvent(rank, time, 'rank-stalled', 'warn', 'stalled'));
	if (was && halted(was) && !halted(rank))
		events.push(rankEvent(rank, time, 'rank-resumed', 'ok', was.stopped ? 'continued' : 'running-again'));
	return events;
}

function jobStalled(job: Job, time: number): JobEvent {
	const stopped = job.ranks.every(r => r.stopped);
	const stalled = job.ranks.every(r => r.stalled);
	const text = jobHaltedText(job.id, job.ranks.length, stopped, stalled);
	// A whole job stopped is most often someone's ^Z or debugger; a whole job without CPU is a hang.
	return {time, kind: 'job-stalled', job: job.id, ...onlyRank(job), level: stopped ? 'warn' : 'critical', text};
}

function jobResumed(job: Job, time: number): JobEvent {
	const running = job.ranks.filter(r => !halted(r)).length;
	return {
		time,
		kind: 'job-resumed',
		job: job.id,
		...onlyRank(job),
		level: 'ok',
		text: jobResumedText(job.id, running, job.ranks.length),
	};
}

/**
 * A job's stall and stop events. The sample in which a whole job goes quiet gives one job-stalled event
 * instead of a rank event each; the sample in which that ends gives job-resumed instead of the ranks' resumed.
 */
function jobChanges(
	before: Job | undefined,
	job: Job,
	ranksBefore: ReadonlyMap<string, RankProcess>,
	time: number,
): JobEvent[] {
	const wasAll = allHalted(before);
	const isAll = allHalted(job);
	if (isAll && !wasAll) return [jobStalled(job, time)];
	const changes = job.ranks.flatMap(rank => rankChanges(ranksBefore.get(processIdentity(rank)), rank, time));
	if (wasAll && !isAll && job.ranks.length > 0)
		return [jobResumed(job, time), ...changes.filter(e => e.kind !== 'rank-resumed')];
	return changes;
}

function endedKey(job: EndedJob): string {
	return `${job.id}@${job.endedAt}`;
}

function jobEnded(job: EndedJob, time: number): JobEvent {
	return {
		time,
		kind: 'job-ended',
		job: job.id,
		rank: null,
		pid: job.launcher?.pid ?? null,
		level: exitLevel(job.exit),
		text: jobEndedText(job),
		exit: job.exit,
	};
}

/**
 * What happened to the jobs between two rank samples: ranks that exited (with how, when a zombie told),
 * jobs that ended (a launcher's departure is told by its job's end), ranks stopped, stalled or running
 * again, whole jobs stalled or running again. `previous` null: the first sample (a rank first seen stopped
 * is reported; nothing else is a change yet).
 */
export function rankEvents(previous: RankSet | null, next: RankSet, time: number): JobEvent[] {
	const events: JobEvent[] = [];
	for (const gone of next.departed) {
		if (gone.role !== 'rank') continue;
		events.push({
			time,
			kind: 'rank-exited',
			job: gone.job,
			rank: gone.rank,
			pid: gone.pid,
			level: exitLevel(gone.exit),
			text: rankExitedText(gone),
			exit: gone.exit,
		});
	}
	const endedBefore = new Set((previous?.ended ?? []).map(endedKey));
	for (const job of next.ended) if (!endedBefore.has(endedKey(job))) events.push(jobEnded(job, time));
	const ranksBefore = new Map((previous?.ranks ?? []).map(r => [processIdentity(r), r]));
	const jobsBefore = new Map((previous?.jobs ?? []).map(job => [job.id, job]));
	for (const job of next.jobs) events.push(...jobChanges(jobsBefore.get(job.id), job, ranksBefore, time));
	return events;
}

/** The last periodic save (overdue counts from it), else the newest complete one: the checkpoint an overdue names. */
function lastPeriodic(index: CheckpointIndex): string | undefined {
	const complete = index.checkpoints.filter(c => c.status === 'complete');
	const periodicTime = index.lastSave?.periodicTime;
	return (complete.find(c => c.time === periodicTime) ?? complete.at(-1))?.name;
}

function overdueEvent(index: CheckpointIndex, time: number, jobId: string | null): JobEvent | null {
	const last = index.lastSave;
	if (!last) return null;
	// The index's own clock: its last save was aged to it.
	const now = last.time + last.ageS * 1000;
	const name = lastPeriodic(index);
	return {
		time,
		kind: 'overdue',
		job: jobId,
		rank: null,
		pid: null,
		level: 'critical',
		text: overdueEventText(index, now),
		...(name === undefined ? {} : {checkpoint: name}),
	};
}

/**
 * What happened in the run dir between two indexes: each checkpoint that became complete (not the ones
 * already there when the first index came: `previous` null, or the stand-in of a first scan, gives no save-seen but
 * for those written while that scan ran), and
 * saves becoming overdue.
 * `jobId` is the run dir's job, when one is known.
 */
export function checkpointEvents(
	previous: CheckpointIndex | null,
	next: CheckpointIndex | null,
	time: number,
	jobId: string | null,
): JobEvent[] {
	if (!next) return [];
	const events: JobEvent[] = [];
	if (previous) {
		const before = new Map(previous.checkpoints.map(c => [c.path, c.status]));
		const written = new Set(next.writtenWhileScanning ?? []);
		for (const c of next.checkpoints) {
			if (c.status !== 'complete' || before.get(c.path) === 'complete') continue;
			// Against the stand-in of a first scan, its checkpoints were there before, but those written while it ran.
			if (previous.scanning && !written.has(c.path)) continue;
			events.push({
				time,
				kind: 'save-seen',
				job: jobId,
				rank: null,
				pid: null,
				level: 'ok',
				text: saveSeenText(c),
				checkpoint: c.name,
			});
		}
	}
	if (next.lastSave?.overdue && !previous?.lastSave?.overdue) {
		const overdue = overdueEvent(next, time, jobId);
		if (overdue) events.push(overdue);
	}
	// Events about the run dir itself, not a checkpoint or a rank: each once, when its `at` changes.
	const runDirEvent = (kind: 'run-dir-replaced' | 'run-dir-access', level: 'ok' | 'warn', text: string) =>
		events.push({time, kind, job: jobId, rank: null, pid: null, level, text});
	const replaced = next.runDirReplaced;
	// A warning, not an alert on a metric: what was written to the old dir is gone, and the user should know.
	if (replaced && replaced.at !== previous?.runDirReplaced?.at) runDirEvent('run-dir-replaced', 'warn', replaced.text);
	const access = next.runDirAccess;
	if (access && access.at !== previous?.runDirAccess?.at)
		runDirEvent('run-dir-access', access.readable ? 'ok' : 'warn', access.text);
	return events;
}

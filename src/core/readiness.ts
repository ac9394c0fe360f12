import type {Job} from './job-types.js';
import type {
	LeadSource,
	Readiness,
	ReadinessReason,
	ReadinessVerdict,
	SaveTimes,
	ShellTrapKind,
} from './readiness-types.js';

// Would this job save in time if its node were taken now? Judged from what traintop read, never guessed: each rank's
// disposition for the signal a preemption sends (/proc), how the signal reaches them (the scheduler's warning and its
// target, the batch shell's trap, the launcher between), how long the job's saves took (the files' own times) and
// how long it gets (the warning's lead, --grace, the scheduler's kill wait). Pure: `now` is given.

/** How the emergency signal reaches the job, and how long before the kill. */
export interface SignalPath {
	/** 'SIGTERM', or the scheduler warning's signal. */
	readonly signal: string;
	readonly leadS: number | null;
	readonly leadFrom: LeadSource | null;
	/** tasks: the job's tasks and everything in them (the launcher too); batch-shell: the batch shell alone. */
	readonly target: 'tasks' | 'batch-shell';
	/** What the batch shell's trap for the signal does; null: no batch script read (or no batch shell). */
	readonly shellTrap: ShellTrapKind | null;
}

/** A launcher between the signal and the ranks, as its own code behaves (ranks/launcher-traps.ts). */
export interface LauncherFacts {
	/** 'torchrun', 'deepspeed'… as the words name it. */
	readonly name: string;
	/** null: not running yet (preflight reads it from the batch script's command line). */
	readonly pid: number | null;
	/** Signals it catches and passes on to its ranks ('SIGTERM'…). */
	readonly forwards: readonly string[];
	/** Seconds after passing one on at which it SIGKILLs ranks still running; null: it waits for them. */
	readonly killAfterS: number | null;
	/** Where that is written: 'torch 2.11 torch/distributed/elastic/multiprocessing/api.py'. */
	readonly source: string;
	/** The exit code it reports when a rank fails, whatever the rank's own; null: it passes the rank's on. */
	readonly exitCode: number | null;
	/** Its own disposition for each signal traintop watches, read from /proc; absent: not read (before launch). */
	readonly signals?: Readonly<Record<string, 'handled' | 'ignored' | 'default'>>;
}

export interface ReadinessInput {
	/** null before launch (preflight): no ranks to read, so their handlers are not judged; `jobId` names the verdict. */
	readonly job: Job | null;
	readonly jobId?: string;
	readonly path: SignalPath;
	readonly launcher: LauncherFacts | null;
	/** Write times of the job's complete saves; null: none seen. */
	readonly saves: SaveTimes | null;
	/** Epoch ms of the newest complete save; null: none. */
	readonly lastSaveAt: number | null;
	/** Checkpoints were started and none completed (partial ones left behind). */
	readonly savesNeverComplete: boolean;
	/** The most work the user accepts losing (--max-work-at-risk, else twice the cadence); null: unknown. */
	readonly maxWorkAtRiskS: number | null;
	readonly now: number;
}

const ORDER: readonly ReadinessVerdict[] = ['not-ready', 'at-risk', 'unknown', 'ready'];

function verdictOf(reasons: readonly ReadinessReason[]): ReadinessVerdict {
	for (const verdict of ORDER.slice(0, 3)) if (reasons.some(r => r.effect === verdict)) return verdict;
	return 'ready';
}

/** What the ranks do with the signal: one reason per rank that would lose its work, else how many handle it. */
function handlerReasons(job: Job, signal: string): ReadinessReason[] {
	if (job.ranks.length === 0) return [{code: 'no-ranks', effect: 'unknown', signal}];
	const out: ReadinessReason[] = [];
	let unread = 0;
	for (const rank of job.ranks) {
		const state = rank.signals[signal];
		if (state === undefined) unread++;
		else if (state.disposition === 'default' && state.terminatesByDefault)
			out.push({code: 'no-handler', effect: 'not-ready', signal, rank: rank.rank, pid: rank.pid});
		else if (state.disposition === 'ignored')
			out.push({code: 'ignored', effect: 'not-ready', signal, rank: rank.rank, pid: rank.pid});
	}
	if (unread > 0) out.push({code: 'no-ranks', effect: 'unknown', signal, count: unread});
	if (out.length === 0) out.push({code: 'handlers', effect: 'fact', signal, count: job.ranks.length});
	return out;
}

/** What the batch shell and the launcher do between the signal and the ranks; the lead the launcher leaves. */
function routeReasons(
	path: SignalPath,
	launcher: LauncherFacts | null,
): {readonly reasons: ReadinessReason[]; readonly leadS: number | null; readonly cutBy: string | null} {
	const {signal} = path;
	const reasons: ReadinessReason[] = [];
	let leadS = path.leadS;
	if (path.target === 'batch-shell') {
		const trap = path.shellTrap;
		if (trap === 'forwards') reasons.push({code: 'shell-forwards', effect: 'note', signal});
		else if (trap === 'none' || trap === 'ignores')
			reasons.push({code: 'batch-shell-only', effect: 'not-ready', signal});
		else if (trap !== null) reasons.push({code: 'shell-trap-no-forward', effect: 'at-risk', signal, name: trap});
		// Whether the shell passes it on is not known: never a guess either way.
		else reasons.push({code: 'shell-trap-unread', effect: 'unknown', signal});
		// The shell's trap decides; what a launcher does with a signal it never gets does not matter.
		return {reasons, leadS, cutBy: null};
	}
	if (path.shellTrap !== null && path.shellTrap !== 'none' && path.leadFrom === 'scheduler-warning')
		reasons.push({code: 'shell-trap-unreached', effect: 'note', signal});
	if (launcher === null) return {reasons, leadS, cutBy: null};
	let cutBy: string | null = null;
	const pid = launcher.pid === null ? {} : {pid: launcher.pid};
	const common = {signal, name: launcher.name, ...pid, source: launcher.source};
	if (launcher.forwards.includes(signal)) {
		if (launcher.killAfterS !== null) {
			// Its limit caps a known lead; with none known it is only an upper bound, and the verdict stays unknown.
			const cut = leadS !== null && launcher.killAfterS < leadS;
			reasons.push({code: 'launcher-kills', effect: 'note', ...common, seconds: launcher.killAfterS});
			if (cut) {
				leadS = launcher.killAfterS;
				cutBy = launcher.name;
			}
		}
	} else if (launcher.signals?.[signal] === 'default') {
		reasons.push({code: 'launcher-dies', effect: 'at-risk', ...common});
	}
	if (launcher.exitCode !== null)
		reasons.push({code: 'launcher-exit-code', effect: 'note', ...common, exitCode: launcher.exitCode});
	return {reasons, leadS, cutBy};
}

/** The saves against the lead and the work since the last one against the limit. */
function saveReasons(
	input: ReadinessInput,
	leadS: number | null,
	leadFrom: LeadSource | null,
	cutBy: string | null,
): ReadinessReason[] {
	const reasons: ReadinessReason[] = [];
	const {saves} = input;
	if (input.savesNeverComplete) reasons.push({code: 'saves-never-complete', effect: 'not-ready'});
	else if (saves === null) reasons.push({code: 'no-save-seen', effect: 'unknown'});
	else reasons.push({code: 'save-time', effect: 'fact', seconds: saves.p50, limitS: saves.max, count: saves.samples});
	if (leadS === null) reasons.push({code: 'no-deadline', effect: 'unknown'});
	else if (saves !== null && saves.max > leadS)
		reasons.push({code: 'save-over-lead', effect: 'at-risk', seconds: saves.max, limitS: leadS, name: saves.slowest});
	else
		reasons.push({
			code: 'lead',
			effect: 'fact',
			signal: input.path.signal,
			seconds: leadS,
			...(leadFrom ? {name: leadFrom} : {}),
			// The launcher's own limit is shorter than the notice: the words name it.
			...(cutBy === null ? {} : {source: cutBy}),
		});
	if (input.lastSaveAt !== null) {
		const limit = input.maxWorkAtRiskS;
		const over = limit !== null && (input.now - input.lastSaveAt) / 1000 > limit;
		reasons.push({
			code: over ? 'work-over-limit' : 'work-since-save',
			effect: over ? 'at-risk' : 'fact',
			...(limit === null ? {} : {limitS: limit}),
		});
	}
	return reasons;
}

export function judgeReadiness(input: ReadinessInput): Readiness {
	const {job, path} = input;
	const route = routeReasons(path, input.launcher);
	const reasons = [
		...(job === null ? [] : handlerReasons(job, path.signal)),
		...route.reasons,
		...saveReasons(input, route.leadS, path.leadFrom, route.cutBy),
	];
	return {
		job: job?.id ?? input.jobId ?? '',
		verdict: verdictOf(reasons),
		signal: path.signal,
		reasons,
		saveS: input.saves,
		leadS: route.leadS,
		leadFrom: path.leadFrom,
		lastSaveAt: input.lastSaveAt,
		maxWorkAtRiskS: input.maxWorkAtRiskS,
	};
}

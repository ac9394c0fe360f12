import type {DepartedProcess, Job, RankSet} from './job-types.js';
import {rankActivity, workerActivity} from './progress-activity.js';
import {CpuWindow} from './progress-cpu.js';
import {GpuSpins} from './progress-gpu.js';
import {type Member, oddAndWaiting} from './progress-odd.js';
import type {
	JobProgress,
	NcclRasState,
	OddProcess,
	ProgressEvidence,
	ProgressVerdict,
	RankWaits,
	StepSignal,
} from './progress-types.js';
import {judgeVerdict} from './progress-verdict.js';
import {type GpuProcessTable, type GpuState, processIdentity} from './types.js';

// Each job's progress, judged at every rank scan from what traintop reads without the job's help: each rank's CPU
// over a trailing window (progress-cpu.ts), where the ranks that do not compute wait (their wait channels, read by
// ranks/rank-waits.ts), the step files of the run dir's job, the GPUs of its ranks, NCCL's RAS answer. It keeps what
// a verdict needs across scans (since when, the hysteresis count, the ranks that left) and nothing else.

export interface ProgressInputs {
	readonly ranks: RankSet | null;
	readonly waits: RankWaits | null;
	/** The run dir's step signals: they belong to the job the run dir names (or to the only job). */
	readonly steps: readonly StepSignal[];
	readonly gpu: GpuState;
	readonly gpuProcesses: GpuProcessTable;
	readonly ras: NcclRasState | null;
	readonly now: number;
}

export interface ProgressOptions {
	/** --hang-after: seconds without progress before a job is stalled (the window is at least 3 × the step time). */
	readonly hangAfterS: number;
}

export const DEFAULT_HANG_AFTER_S = 300;

interface JobState {
	readonly firstSeenAt: number;
	scans: number;
	previous: {verdict: ProgressVerdict; since: number; resume: number} | null;
	/** Ranks that left while others stayed, newest last. */
	gone: OddProcess[];
}

/** The step time the window is sized by: the slowest any file shows (a conservative window). */
function stepTimeS(steps: readonly StepSignal[]): number | null {
	const times = steps.flatMap(s => (s.stepS === null ? [] : [s.stepS]));
	return times.length === 0 ? null : Math.max(...times);
}

function rasEvidence(ras: NcclRasState | null): ProgressEvidence[] {
	if (ras?.status !== 'ok') return [];
	return ras.groups
		.filter(g => g.status !== 'RUNNING' || g.errors !== 'OK')
		.map(g => ({code: 'nccl-ras-error', name: `group ${g.group}: ${g.status}, ${g.errors}`}));
}

export class ProgressJudge {
	readonly #options: ProgressOptions;
	readonly #jobs = new Map<string, JobState>();
	/** Each rank's CPU window and since when it does what it does, by identity. */
	#cpu = new Map<string, CpuWindow>();
	#doing = new Map<string, {readonly key: string; readonly since: number}>();
	readonly #gpu = new GpuSpins();
	#sampledAt = -1;
	#last: readonly JobProgress[] = [];

	constructor(options: ProgressOptions) {
		this.#options = options;
	}

	/** The jobs' progress: a new array at each rank scan, the same one in between (the agent sends it only then). */
	judge(inputs: ProgressInputs): readonly JobProgress[] {
		this.#gpu.update(inputs.gpu, inputs.now);
		const {ranks} = inputs;
		if (!ranks) return this.#last;
		if (ranks.sampledAt === this.#sampledAt) return this.#last;
		this.#sampledAt = ranks.sampledAt;
		this.#noteDeparted(ranks.departed, ranks.sampledAt);
		const seen = new Set<string>();
		const runDirJob = ranks.jobs.length === 1 ? ranks.jobs[0]!.id : ranks.jobs.find(j => j.runDir !== null)?.id;
		this.#last = ranks.jobs.map(job =>
			this.#judgeJob(job, inputs, ranks.sampledAt, job.id === runDirJob ? inputs.steps : [], seen),
		);
		for (const id of this.#cpu.keys()) if (!seen.has(id)) this.#cpu.delete(id);
		for (const id of this.#doing.keys()) if (!seen.has(id)) this.#doing.delete(id);
		for (const id of this.#jobs.keys()) if (!ranks.jobs.some(j => j.id === id)) this.#jobs.delete(id);
		return this.#last;
	}

	#noteDeparted(departed: readonly DepartedProcess[], at: number): void {
		for (const d of departed) {
			const state = this.#jobs.get(d.job);
			if (d.role !== 'rank' || !state) continue;
			state.gone.push({role: 'rank', rank: d.rank, pid: d.pid, activity: 'gone', wchan: null, since: at, exit: d.exit});
		}
	}

	#member(job: Job, index: number, inputs: ProgressInputs, at: number, seen: Set<string>): Member {
		const rank = job.ranks[index]!;
		const id = processIdentity(rank);
		seen.add(id);
		const cpu = this.#cpu.get(id) ?? new CpuWindow();
		this.#cpu.set(id, cpu);
		const computing = cpu.add(at, rank.cpuPercent);
		const wait = inputs.waits?.get(rank.pid);
		const activity = rankActivity(rank, computing, wait?.wchan ?? null);
		const wchan = activity === 'computing' ? null : (wait?.wchan ?? null);
		const key = `${activity} ${wchan}`;
		const doing = this.#doing.get(id);
		const doingSince = doing?.key === key ? doing.since : at;
		this.#doing.set(id, {key, since: doingSince});
		const flat = activity === 'waiting' || activity === 'sleeping';
		const workers = (wait?.workers ?? []).map(w => ({
			role: 'worker' as const,
			rank: rank.rank,
			pid: w.pid,
			activity: workerActivity(w),
			wchan: w.wchan,
			since: doingSince,
			cpuPercent: w.cpuPercent,
			of: rank.pid,
		}));
		return {
			role: 'rank',
			rank: rank.rank,
			pid: rank.pid,
			activity,
			wchan,
			// A rank that waits has waited since its CPU last moved; anything else since it was first seen doing it.
			since: flat ? (cpu.advancedAt ?? this.#jobs.get(job.id)?.firstSeenAt ?? at) : doingSince,
			cpuPercent: rank.cpuPercent,
			workers,
		};
	}

	#judgeJob(
		job: Job,
		inputs: ProgressInputs,
		at: number,
		steps: readonly StepSignal[],
		seen: Set<string>,
	): JobProgress {
		const state = this.#jobs.get(job.id) ?? {firstSeenAt: at, scans: 0, previous: null, gone: []};
		this.#jobs.set(job.id, state);
		state.scans++;
		const members = job.ranks.map((_, i) => this.#member(job, i, inputs, at, seen));
		// A rank that left and came back (an elastic restart under the same id) is not gone.
		state.gone = state.gone.filter(g => !job.ranks.some(r => r.rank === g.rank && g.rank !== null));
		const {odd, waiting} = oddAndWaiting([...state.gone, ...members]);
		const windows = job.ranks.map(r => ({
			rank: r,
			flatSince: this.#cpu.get(processIdentity(r))?.advancedAt ?? state.firstSeenAt,
		}));
		const slowest = windows.reduce<(typeof windows)[number] | null>(
			(a, b) => (a && a.flatSince <= b.flatSince ? a : b),
			null,
		);
		const stepS = stepTimeS(steps);
		const windowS = Math.max(this.#options.hangAfterS, 3 * (stepS ?? 0));
		const pids = new Set(job.ranks.flatMap(r => [r.pid, ...r.workers]));
		const gpuEvidence = this.#gpu.evidence(pids, inputs.gpuProcesses, at);
		const spins = gpuEvidence.flatMap(e => (e.code === 'gpu-spin' ? [e.seconds ?? 0] : []));
		const out = judgeVerdict({
			now: at,
			windowS,
			firstSeenAt: state.firstSeenAt,
			scans: state.scans,
			cpuFlatSince: slowest?.flatSince ?? null,
			slowest: slowest ? {rank: slowest.rank.rank, pid: slowest.rank.pid} : null,
			allComputing: members.length > 0 && members.every(m => m.activity === 'computing'),
			steps,
			odd,
			someoneWaits: members.some(m => m.activity === 'waiting'),
			gpuSpinS: spins.length > 0 ? Math.min(...spins) : null,
			previous: state.previous,
		});
		state.previous = {verdict: out.verdict, since: out.since, resume: out.resume};
		const stuck = out.verdict === 'stalled' || out.verdict === 'hung';
		const evidence = [...out.evidence, ...gpuEvidence, ...rasEvidence(inputs.ras)];
		if (stuck && odd.length === 0 && waiting.length > 0) evidence.push({code: 'all-waiting'});
		const step = steps.reduce<number | null>(
			(max, s) => (s.step !== null && (max === null || s.step > max) ? s.step : max),
			null,
		);
		return {
			job: job.id,
			verdict: out.verdict,
			since: out.since,
			lastProgressAt: out.lastProgressAt,
			windowS,
			stepS,
			step,
			// Who stands out and who waits, while it matters: a progressing job's ranks are all busy with its step.
			odd: stuck ? odd : [],
			waiting: stuck ? waiting : [],
			evidence,
		};
	}
}

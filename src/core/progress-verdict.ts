import type {OddProcess, ProgressEvidence, ProgressVerdict, StepSignal} from './progress-types.js';

// The verdict of one job at one scan, from figures the judge gathered (core/progress.ts). Pure: the same inputs give
// the same verdict. A job is stalled when no progress signal moved for the window — the slowest rank's CPU, or every
// step file the job writes, or a GPU spinning at idle power — and hung when, stalled, something stands out: an odd
// rank while the others wait, a rank stopped while its peers wait for it, a rank gone while its peers still run.

/** Scans in a row without a stall before a stalled or hung job counts as progressing again. */
export const RESUME_SCANS = 3;

export interface VerdictInputs {
	readonly now: number;
	readonly windowS: number;
	/** When the job was first seen (epoch ms). */
	readonly firstSeenAt: number;
	/** Scans of the job so far, this one included. */
	readonly scans: number;
	/** The slowest rank's last computing scan, or when it was first seen; null: no rank present. */
	readonly cpuFlatSince: number | null;
	/** The rank whose CPU has been flat the longest (the one cpuFlatSince is of). */
	readonly slowest: {readonly rank: number | null; readonly pid: number} | null;
	/** Every present rank is computing at this scan. */
	readonly allComputing: boolean;
	readonly steps: readonly StepSignal[];
	readonly odd: readonly OddProcess[];
	/** Some present rank waits in a collective. */
	readonly someoneWaits: boolean;
	readonly gpuSpinS: number | null;
	readonly previous: {readonly verdict: ProgressVerdict; readonly since: number; readonly resume: number} | null;
}

export interface VerdictOutput {
	readonly verdict: ProgressVerdict;
	readonly since: number;
	/** Scans in a row without a stall while stalled or hung (the hysteresis count). */
	readonly resume: number;
	readonly lastProgressAt: number | null;
	readonly evidence: readonly ProgressEvidence[];
}

/** A gone rank that did not exit 0, or a rank stopped while a peer waits: the job cannot go on, whatever the window. */
function immediate(odd: readonly OddProcess[], someoneWaits: boolean): OddProcess | null {
	const gone = odd.find(
		o => o.role === 'rank' && (o.activity === 'gone' || o.activity === 'zombie') && o.exit?.code !== 0,
	);
	if (gone) return gone;
	return (someoneWaits && odd.find(o => o.role === 'rank' && o.activity === 'stopped')) || null;
}

function stepEvidence(signal: StepSignal, now: number, windowS: number): ProgressEvidence | null {
	if (signal.movedAt === null) return null;
	const seconds = (now - signal.movedAt) / 1000;
	const limitS = Math.max(windowS, 3 * (signal.intervalS ?? 0));
	const figures = {source: signal.source, step: signal.step, seconds};
	return seconds >= limitS ? {code: 'steps-late', ...figures, limitS} : {code: 'steps-moving', ...figures};
}

export function judgeVerdict(input: VerdictInputs): VerdictOutput {
	const {now, windowS, previous} = input;
	const stepFacts = input.steps.flatMap(s => stepEvidence(s, now, windowS) ?? []);
	const stepsMoving = stepFacts.some(e => e.code === 'steps-moving');
	const stepsLate = stepFacts.length > 0 && !stepsMoving;
	const stepsMovedAt = Math.max(-Infinity, ...input.steps.map(s => s.movedAt ?? -Infinity));
	const flatS = input.cpuFlatSince === null ? 0 : (now - input.cpuFlatSince) / 1000;
	const cpuStalled = input.cpuFlatSince !== null && flatS >= windowS;
	const spin = input.gpuSpinS !== null && input.gpuSpinS >= windowS;
	const cause = immediate(input.odd, input.someoneWaits);
	// Files that move prove progress: a rank that idles while the others train (a data-parallel straggler cannot) or
	// a spin reading is then not a stall.
	const stalled = cause !== null || (!stepsMoving && (cpuStalled || stepsLate || spin));

	const evidence: ProgressEvidence[] = [...stepFacts];
	if (cpuStalled) {
		evidence.push({code: 'cpu-flat', rank: input.slowest?.rank ?? null, pid: input.slowest?.pid, seconds: flatS});
	} else if (input.allComputing) evidence.push({code: 'cpu-moving'});
	if (stepsLate && input.allComputing) evidence.push({code: 'cpu-without-steps'});

	const cpuProgressAt = input.allComputing ? now : input.cpuFlatSince;
	const lastProgressAt = Math.max(cpuProgressAt ?? -Infinity, stepsMovedAt);
	const progressAt = Number.isFinite(lastProgressAt) ? lastProgressAt : null;

	const wasStuck = previous?.verdict === 'stalled' || previous?.verdict === 'hung';
	if (stalled) {
		const hung = cause !== null || spin || input.odd.length > 0;
		const since = cause?.since ?? progressAt ?? input.firstSeenAt;
		return {verdict: hung ? 'hung' : 'stalled', since, resume: 0, lastProgressAt: progressAt, evidence};
	}
	// Hysteresis: back to progressing only after RESUME_SCANS scans in a row without a stall, or at once when a step
	// file moved after the stall began.
	if (wasStuck && previous) {
		const resume = previous.resume + 1;
		const stepMovedSince = stepsMovedAt > previous.since && stepsMoving;
		if (resume < RESUME_SCANS && !stepMovedSince)
			return {verdict: previous.verdict, since: previous.since, resume, lastProgressAt: progressAt, evidence};
	}
	const seenComputing = input.cpuFlatSince !== null && input.cpuFlatSince > input.firstSeenAt;
	if (!stepsMoving && !seenComputing && !input.allComputing)
		return {verdict: 'unknown', since: input.firstSeenAt, resume: 0, lastProgressAt: progressAt, evidence};
	const since = previous?.verdict === 'progressing' ? previous.since : now;
	return {verdict: 'progressing', since, resume: 0, lastProgressAt: progressAt, evidence};
}

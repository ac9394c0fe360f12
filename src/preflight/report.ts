import {EXIT} from '../core/errors.js';
import type {ReadinessVerdict} from '../core/readiness-types.js';
import type {DiskNeed} from './disk-need.js';
import type {LoaderEstimate} from './estimate.js';
import type {GpuReport} from './gpu-free.js';
import type {ResolvedInputs} from './inputs.js';
import type {RamBasis, RamJudgement, Verdict} from './ram-verdict.js';
import type {ReadinessPart} from './readiness.js';

// Everything preflight found, as plain data: the text and the JSON are written from it, and the exit code follows
// from its verdicts.

/** The resolved inputs (inputs.ts) with the estimate made from them, or the same "skipped" with what was missing. */
export type EstimatePart =
	| (Omit<Extract<ResolvedInputs, {status: 'ready'}>, 'status'> & {
			readonly status: 'estimated';
			readonly estimate: LoaderEstimate;
	  })
	| Extract<ResolvedInputs, {status: 'skipped'}>;

export interface PreflightReport {
	/** The machine whose RAM, GPUs and disk were read. */
	readonly host: string;
	readonly estimate: EstimatePart;
	readonly ram: {
		readonly basis: RamBasis;
		readonly criticalPercent: number;
		readonly warnMargin: number;
		/** null when the estimate was skipped. */
		readonly judgement: RamJudgement | null;
	};
	readonly gpus: GpuReport;
	/** null without a RUN_DIR. */
	readonly disk: {readonly runDir: string; readonly need: DiskNeed} | null;
	readonly signals: {readonly save: string; readonly emergency: string; readonly advice: readonly string[]};
	/** Would a preemption's save make it (--batch-script, --run-dir, --grace); null: none of them given. */
	readonly readiness: ReadinessPart | null;
}

export type OverallVerdict = Verdict | 'unknown';

const ORDER: readonly Verdict[] = ['fits', 'tight', 'will_not_fit'];

/** The worst of the RAM verdict and the disk's; unknown when neither could be judged. */
export function overallVerdict(report: PreflightReport): OverallVerdict {
	const verdicts: Verdict[] = [];
	if (report.ram.judgement) verdicts.push(report.ram.judgement.verdict);
	const disk = report.disk?.need.status;
	if (disk === 'fits' || disk === 'will_not_fit') verdicts.push(disk);
	if (verdicts.length === 0) return 'unknown';
	return verdicts.reduce((worst, v) => (ORDER.indexOf(v) > ORDER.indexOf(worst) ? v : worst));
}

/**
 * 4 when something will not fit or the readiness is not-ready; 4 for tight and at-risk too with --fail-on-breach (as
 * `--analyze --fail-on-breach`: the line is reached); else 0. A skipped estimate or an unknown readiness is not a
 * breach: nothing was found over a line.
 */
export function exitCodeOf(
	verdict: OverallVerdict,
	failOnBreach: boolean,
	readiness: ReadinessVerdict | null = null,
): number {
	if (verdict === 'will_not_fit' || readiness === 'not-ready') return EXIT.breach;
	if ((verdict === 'tight' || readiness === 'at-risk') && failOnBreach) return EXIT.breach;
	return EXIT.ok;
}

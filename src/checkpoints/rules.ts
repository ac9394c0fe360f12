// The retention rules frameworks apply, as pure functions of one checkpoint group (one layout's checkpoints in one
// directory). A layout picks one and fills in its framework's words and quirks; retention.ts runs it per group.
// Each answers what the framework's NEXT save deletes: those are marked prune-next.

import type {MonitorSetting, ScannedCheckpoint} from '../core/types.js';

export interface RuleInput {
	/** The group's checkpoints, oldest first, complete and partial. */
	readonly checkpoints: readonly ScannedCheckpoint[];
	/** keep-N in force: what the run's files declare, else --keep; null when neither says (or keepsAll). */
	readonly keep: number | null;
	/** The run's files say to keep every checkpoint (Lightning's save_top_k −1); keep is null then. */
	readonly keepsAll?: boolean;
	/** The monitored metric for top-k rules: the run's declared one, else null (the rule may infer it from names). */
	readonly monitor: MonitorSetting | null;
}

export interface RetentionPlan {
	/** The rule in the framework's words: "HF save_total_limit 3, best protected", "Lightning top-3 by val_loss (min)". */
	readonly rule: string;
	/** The checkpoints the rotation ranks (what keep-N counts). */
	readonly counted: readonly ScannedCheckpoint[];
	/** What the next save deletes. */
	readonly toPrune: readonly ScannedCheckpoint[];
	/** Never deleted by the rotation: last, best, files outside it (the seed's state.pt). */
	readonly protected: readonly ScannedCheckpoint[];
	/** Set when the rule ignores the input's keep: null for a framework that never deletes. */
	readonly keep?: number | null;
}

export type RetentionRule = (input: RuleInput) => RetentionPlan;

/** Oldest first: by step where both have one, else by time, then name (a stable total order). */
export function compareAge(a: ScannedCheckpoint, b: ScannedCheckpoint): number {
	if (a.step !== null && b.step !== null && a.step !== b.step) return a.step - b.step;
	if (a.time !== b.time) return a.time - b.time;
	return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function isLastOrBest(c: ScannedCheckpoint): boolean {
	return c.kind === 'last' || c.kind === 'best';
}

function isComplete(c: ScannedCheckpoint): boolean {
	return c.status === 'complete';
}

export interface NewestOptions {
	/** The setting's name as the framework spells it: "save_total_limit", "max_to_keep", "keep_latest_k". */
	readonly setting: string;
	/** Prefix of the rule line: "HF", "Accelerate", "torchtitan". */
	readonly framework: string;
	/** Appended to the rule line when keep is known: ", best protected". */
	readonly note?: string;
	/** Outside the rotation, never deleted (default: kind last or best). */
	readonly protects?: (c: ScannedCheckpoint) => boolean;
	/** Which of the others the rotation sees (default: complete ones). */
	readonly counts?: (c: ScannedCheckpoint) => boolean;
	/** The framework's own oldest-first order (default: compareAge). */
	readonly order?: (a: ScannedCheckpoint, b: ScannedCheckpoint) => number;
}

/**
 * Keep the newest N: after a save the group holds count + 1 and the oldest count + 1 − N go. (Accelerate deletes
 * down to N − 1 before it saves: the same ones.)
 */
export function keepNewest(options: NewestOptions): RetentionRule {
	const protects = options.protects ?? isLastOrBest;
	const counts = options.counts ?? isComplete;
	const order = options.order ?? compareAge;
	return ({checkpoints, keep, keepsAll}) => {
		const protectedOnes = checkpoints.filter(protects);
		const counted = checkpoints.filter(c => !protects(c) && counts(c)).sort(order);
		const head = `${options.framework} ${options.setting}`;
		if (keepsAll) return {rule: `${head}: keeps all`, counted, toPrune: [], protected: protectedOnes, keep: null};
		if (keep === null)
			return {rule: `${head} unknown: keeps all (--keep N)`, counted, toPrune: [], protected: protectedOnes};
		const toPrune = counted.slice(0, Math.max(0, counted.length + 1 - keep));
		return {rule: `${head} ${keep}${options.note ?? ''}`, counted, toPrune, protected: protectedOnes};
	};
}

/** A framework that never deletes its checkpoints: nothing is planned, whatever --keep says. */
export function keepAll(rule: string): RetentionRule {
	return ({checkpoints}) => ({rule, counted: [], toPrune: [], protected: checkpoints.filter(isLastOrBest), keep: null});
}

const LOWER_IS_BETTER = /loss|err|perplex|ppl|wer|cer|mae|mse|rmse|nll|bpb|bpc/i;
const HIGHER_IS_BETTER = /acc|f1|auc|bleu|rouge|map|precision|recall|iou|dice|score|top1|top5|reward|psnr|ssim/i;

/** A metric's mode from its name: loss-like ⇒ min, accuracy-like ⇒ max, else null. */
export function guessMode(name: string): MonitorSetting {
	const mode = LOWER_IS_BETTER.test(name) ? 'min' : HIGHER_IS_BETTER.test(name) ? 'max' : null;
	return {name, mode, modeFrom: mode === null ? null : 'guessed from the name'};
}

/** The metric most of the group's names carry, with its mode guessed; null when none carries one. */
function monitorFromNames(checkpoints: readonly ScannedCheckpoint[]): MonitorSetting | null {
	const counts = new Map<string, number>();
	for (const c of checkpoints) if (c.metric) counts.set(c.metric.name, (counts.get(c.metric.name) ?? 0) + 1);
	let best: string | null = null;
	for (const [name, n] of counts) if (best === null || n > (counts.get(best) ?? 0)) best = name;
	return best === null ? null : guessMode(best);
}

export interface TopKOptions {
	/** "Lightning", "NeMo", "timm". */
	readonly framework: string;
	/** The k setting's name: "save_top_k", "max_history". */
	readonly setting: string;
	readonly protects?: (c: ScannedCheckpoint) => boolean;
	/** Which of the others the rotation ranks (default: complete ones carrying the monitored metric). */
	readonly counts?: (c: ScannedCheckpoint, monitor: MonitorSetting) => boolean;
}

/**
 * Keep the best k by a monitored metric: once k are kept, a save that beats the worst deletes the worst (not the
 * oldest). Ties go oldest first. Without a mode (a metric name that says neither) nothing is planned.
 */
export function topK(options: TopKOptions): RetentionRule {
	const protects = options.protects ?? isLastOrBest;
	return ({checkpoints, keep, keepsAll, monitor}) => {
		const protectedOnes = checkpoints.filter(protects);
		const watched = monitor ?? monitorFromNames(checkpoints.filter(c => !protects(c)));
		// No metric anywhere (monitor=None): the framework keeps the newest k.
		if (watched === null) return keepNewest({...options, counts: undefined})({checkpoints, keep, keepsAll, monitor});
		const counts = options.counts ?? ((c, m) => isComplete(c) && c.metric?.name === m.name);
		const counted = checkpoints.filter(c => !protects(c) && counts(c, watched)).sort(compareAge);
		if (keepsAll) {
			const all = `${options.framework} ${options.setting}: keeps all`;
			return {rule: all, counted, toPrune: [], protected: protectedOnes, keep: null};
		}
		const head = `${options.framework} top-${keep ?? 'k'} by ${watched.name}`;
		const mode = watched.mode === null ? 'mode unknown' : watched.mode;
		const rule = `${head} (${mode}${watched.modeFrom === 'guessed from the name' ? ', guessed' : ''})`;
		if (keep === null || watched.mode === null) {
			const why = keep === null ? `${options.setting} unknown (--keep N)` : 'cannot tell worst from best';
			// Nothing can be planned: said as "nothing planned", not as a keep-N that prunes nothing.
			return {rule: `${rule}: ${why}`, counted, toPrune: [], protected: protectedOnes, keep: null};
		}
		const sign = watched.mode === 'min' ? -1 : 1;
		// Worst first: for min the highest value, for max the lowest.
		const worstFirst = [...counted].sort(
			(a, b) => sign * ((a.metric?.value ?? 0) - (b.metric?.value ?? 0)) || compareAge(a, b),
		);
		const toPrune = worstFirst.slice(0, Math.max(0, counted.length + 1 - keep));
		return {rule, counted, toPrune, protected: protectedOnes};
	};
}

import type {Checkpoint, CheckpointIndex, DeclaredCadence, RetentionGroup, SaveCadence} from '../core/types.js';
import {formatAge, formatDuration} from './duration.js';
import {printable} from './printable.js';
import {localTimeShort} from './time.js';

// The words for a checkpoint's state, shared by `traintop checkpoints` and the TUI's checkpoints
// pane: a person who learnt PRUNE NEXT in one must not meet another word for it in the other.

/** Blank for a checkpoint kept; PRUNE NEXT in capitals because keep-N deletes it at the next save. */
export const RETENTION_MARK: Readonly<Record<Checkpoint['retention'], string>> = {
	keep: '',
	'prune-next': 'PRUNE NEXT',
	protected: 'protected',
};

/** PARTIAL: still being written, or abandoned mid-save. */
export const PARTIAL_MARK = 'PARTIAL';

/** A checkpoint index's warning while RUN_DIR does not exist yet (the job has not made it): it is waited for. */
export const WAITING_FOR_RUN_DIR = 'waiting for RUN_DIR to appear';

/** What the checkpoint views say while the watcher's first scan of the run dir runs (CheckpointIndex.scanning). */
const SCANNING_RUN_DIR = 'scanning the run dir…';

/** What a view says of an index without a last save: why there is none. */
export function noSaveText(index: CheckpointIndex): string {
	// A first scan that failed leaves its error as the stand-in's warning.
	if (index.scanning) return index.warnings[0] ?? SCANNING_RUN_DIR;
	return index.warnings.includes(WAITING_FOR_RUN_DIR) ? WAITING_FOR_RUN_DIR : 'no complete save yet';
}

/**
 * Where a group's keep-N came from: ` (--keep)`, or the run's file that declares it, ` (training_args.bin)` (the rule
 * names the setting already), or ''.
 */
function keepSource(group: RetentionGroup): string {
	if (group.source === 'flag') return ' (--keep)';
	if (group.source === 'metadata' && group.from !== null) {
		const file = printable(group.from.split(' ')[0] ?? '');
		return group.keepInferred === true ? ` (inferred from ${file})` : ` (${file})`;
	}
	return '';
}

/** `every 10 steps`, `every epoch`, `every 30 s`: a declared cadence in words; '' when it says nothing. */
export function declaredCadenceWords(cadence: DeclaredCadence): string {
	const every = (n: number, unit: string) => (n === 1 ? `every ${unit}` : `every ${n} ${unit}s`);
	const parts: string[] = [];
	if (cadence.everySteps !== null) parts.push(every(cadence.everySteps, 'step'));
	if (cadence.everyEpochs !== null) parts.push(every(cadence.everyEpochs, 'epoch'));
	if (cadence.everySeconds !== null) parts.push(`every ${formatAge(cadence.everySeconds)}`);
	return parts.join(' or ');
}

/**
 * What a group's files declare, for `traintop checkpoints`: the settings read, grouped by the file they came from,
 * `declared: save_total_limit 2, save_strategy 'steps' (checkpoint-50/training_args.bin); global_step 50
 * (checkpoint-50/trainer_state.json)`, and the cadence with where; [] when nothing was read.
 */
export function declaredLines(group: RetentionGroup): string[] {
	const lines: string[] = [];
	const byFile = new Map<string, string[]>();
	for (const fact of group.facts ?? []) {
		const shown = `${fact.key} ${fact.value}${fact.inferred === true ? ' (inferred)' : ''}`;
		byFile.set(fact.from, [...(byFile.get(fact.from) ?? []), shown]);
	}
	if (byFile.size > 0) {
		const parts = [...byFile].map(([file, facts]) => `${facts.join(', ')} (${file})`);
		lines.push(printable(`declared: ${parts.join('; ')}`));
	}
	const words = group.cadence === undefined ? '' : declaredCadenceWords(group.cadence);
	if (group.cadence !== undefined && words !== '') {
		lines.push(printable(`declared cadence: ${words} (${group.cadence.from})`));
	}
	return lines;
}

/**
 * A checkpoint group's heading: the framework and the rule it deletes by,
 * `Hugging Face Trainer · HF save_total_limit 3, best protected (training_args.bin)`;
 * compact: the rule alone (it starts with the framework's short name).
 */
export function groupHeading(group: RetentionGroup, compact: boolean): string {
	if (compact) return group.dir === '' ? group.rule : `${printable(group.dir)}/ · ${group.rule}`;
	return `${groupWhere(group)} · ${group.rule}${keepSource(group)}`;
}

/** A group's framework and where its checkpoints were found: `PyTorch Lightning in ckpts/` (nothing for the run dir). */
export function groupWhere(group: RetentionGroup): string {
	return group.dir === '' ? group.framework : `${group.framework} in ${printable(group.dir)}/`;
}

/** How many skipped directories the no-checkpoints line names. */
const SKIPPED_SHOWN = 5;

/**
 * What a view says when the scan found nothing: where it looked, so that "none" can be weighed, `no checkpoints yet
 * in runs/exp1 (searched 12 directories to depth 4; skipped .git, .venv)`.
 */
export function noCheckpointsText(index: CheckpointIndex): string {
	const where = `no checkpoints yet in ${printable(index.runDir)}`;
	const search = index.search;
	if (search === undefined) return where;
	const dirs = `searched ${search.dirs} director${search.dirs === 1 ? 'y' : 'ies'} to depth ${search.maxDepth}`;
	const shown = search.skipped.slice(0, SKIPPED_SHOWN).map(printable);
	if (search.skipped.length > SKIPPED_SHOWN) shown.push(`${search.skipped.length - SKIPPED_SHOWN} more`);
	const skipped = shown.length === 0 ? '' : `; skipped ${shown.join(', ')}`;
	const capped = search.capped ? '; stopped at its cap' : '';
	return `${where} (${dirs}${skipped}${capped})`;
}

/** `every 300 steps at 3.0 steps/s`, `every 300 steps`, `every 30 s`: the cadence in the job's own units. */
function cadenceWords(cadence: SaveCadence): string {
	if (cadence.everySteps !== null) {
		const pace = cadence.stepsPerSecond === null ? '' : ` at ${paceWords(cadence.stepsPerSecond)}`;
		return `every ${cadence.everySteps} steps${pace}`;
	}
	return cadence.everySeconds === null ? 'cadence unknown' : `every ${formatAge(cadence.everySeconds)}`;
}

/** `3.0 steps/s`, `0.25 steps/s`, `12 steps/s`: two significant figures, enough to check by hand. */
function paceWords(stepsPerSecond: number): string {
	const shown = stepsPerSecond >= 10 ? stepsPerSecond.toFixed(0) : stepsPerSecond.toPrecision(2);
	return `${shown} steps/s`;
}

/** `the save due at step 900 (~10:42:07)`, `the save due ~10:42:07`: the expected next periodic save. */
function dueWords(cadence: SaveCadence, now: number): string {
	const at = cadence.nextAt === null ? '' : `~${localTimeShort(cadence.nextAt, now)}`;
	if (cadence.nextStep === null) return `the save due ${at}`.trimEnd();
	return `the save due at step ${cadence.nextStep}${at === '' ? '' : ` (${at})`}`;
}

/**
 * The OVERDUE words, `the save due at step 900 (~10:42:07) has not come; 1 m 40 s late (every 300 steps at 3.0
 * steps/s)`. An index without a cadence (built by hand) gives the last periodic save's age.
 */
export function overdueText(index: CheckpointIndex, now: number): string {
	const cadence = index.cadence;
	if (!cadence || cadence.nextAt === null) {
		const last = index.lastSave;
		const periodic = last?.periodicTime ?? last?.time ?? now;
		return `last periodic save ${formatAge((now - periodic) / 1000)} ago`;
	}
	const late = formatDuration(Math.max(0, (now - cadence.nextAt) / 1000));
	return `${dueWords(cadence, now)} has not come; ${late} late (${cadenceWords(cadence)})`;
}

/**
 * The next save as the checkpoint views show it: `next save ~step 900 in 1 min (every 300 steps at 3.0 steps/s)`, `next
 * save ~step 900 due now`, `cadence: learning (1 periodic save seen, 3 needed)`, or why it is not judged. Null without
 * a cadence (an index built by hand, the stand-in of a first scan).
 */
export function nextSaveText(index: CheckpointIndex, now: number, compact = false): string | null {
	const cadence = index.cadence;
	if (!cadence || index.scanning) return null;
	if (cadence.learning !== null) {
		const why = cadence.learning.replace(/^learning( the pace)?: /, '');
		const what = cadence.learning.startsWith('learning the pace') ? 'learning the pace' : 'learning';
		return compact ? `cadence: ${what}` : `cadence: ${what} (${why})`;
	}
	const every = compact ? '' : ` (${cadenceWords(cadence)})`;
	if (cadence.suspended !== null) return compact ? 'job stopping: not judged' : cadence.suspended;
	const step = cadence.nextStep === null ? '' : ` ~step ${cadence.nextStep}`;
	if (cadence.nextAt === null) return `next save${step}${every}`;
	const inS = (cadence.nextAt - now) / 1000;
	const when = inS > 0 ? `in ${formatAge(inS)}` : 'due now';
	return `next save${step} ${when}${every}`;
}

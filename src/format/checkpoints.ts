import {OVERDUE_FACTOR} from '../checkpoints/retention.js';
import type {Checkpoint, CheckpointIndex, DeclaredCadence, RetentionGroup} from '../core/types.js';
import {ageSeconds, finerAge, formatAge} from './duration.js';
import {printable} from './printable.js';

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
export function cadenceWords(cadence: DeclaredCadence): string {
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
	const words = group.cadence === undefined ? '' : cadenceWords(group.cadence);
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

/** Decimals added at most to make an overdue visible: beyond a thousandth of a unit the two are the same. */
const MOST_EXTRA_DECIMALS = 3;

/**
 * The periodic save's age and the usual interval for an OVERDUE, each in formatAge's unit, with as few decimals more
 * as make the figures shown say why: the age shown is over 1.5 × the interval shown. formatAge alone rounded a 2.4 s
 * age beside a 1.5 s interval to "2 s ago, over 1.5 × the usual 2 s", which reads as on time.
 */
export function overdueFigures(periodicAgeS: number, usualS: number): {readonly age: string; readonly usual: string} {
	const late = periodicAgeS > OVERDUE_FACTOR * usualS;
	for (let extra = 0; ; extra++) {
		const age = finerAge(periodicAgeS, extra);
		const usual = finerAge(usualS, extra);
		// Read back as a person would; the margin keeps a float's last bit (2.2 h = 7920.000000000001 s) from deciding.
		if (!late || extra === MOST_EXTRA_DECIMALS || ageSeconds(age) > OVERDUE_FACTOR * ageSeconds(usual) * (1 + 1e-9))
			return {age, usual};
	}
}

/** `last periodic save 2.4 s ago, over 1.5 × the usual 1.5 s`: the OVERDUE event's words, its figures agreeing. */
export function overdueText(periodicAgeS: number, usualS: number): string {
	const {age, usual} = overdueFigures(periodicAgeS, usualS);
	return `last periodic save ${age} ago, over ${OVERDUE_FACTOR} × the usual ${usual}`;
}

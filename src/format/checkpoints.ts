import type {Checkpoint, CheckpointIndex, RetentionGroup} from '../core/types.js';
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
	if (group.source === 'metadata' && group.from !== null) return ` (${printable(group.from.split(' ')[0] ?? '')})`;
	return '';
}

/**
 * A checkpoint group's heading: the framework and the rule it deletes by,
 * `Hugging Face Trainer · HF save_total_limit 3, best protected (training_args.bin)`;
 * compact: the rule alone (it starts with the framework's short name).
 */
export function groupHeading(group: RetentionGroup, compact: boolean): string {
	if (compact) return group.rule;
	const where = group.dir === '' ? '' : ` in ${printable(group.dir)}/`;
	return `${group.framework}${where} · ${group.rule}${keepSource(group)}`;
}

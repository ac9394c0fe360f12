import type {Checkpoint} from '../core/types.js';

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

import type {Level} from '../../core/types.js';

// Apart from the pane that shows it (CheckpointsPane.tsx): the screen data carries it, and the pane imports that.

/** What became of the last save request: the app writes it, the pane shows it under the header. */
export interface SaveStatus {
	/**
	 * `waiting for checkpoint… (SIGUSR1 to job torchrun:4242 sent 10:00:30)`, `saved checkpoint_step_1600 in 4 s`,
	 * `checkpoint_step_1600 in 4 s — next checkpoint, may be periodic` (not surely the save asked for),
	 * `no emergency checkpoint seen: job torchrun:4242 exited after SIGTERM (exit 1)`,
	 * `no new checkpoint 120 s after SIGUSR1`
	 */
	readonly text: string;
	/** ok: in progress or done; warn: a save not surely the one asked for, or not watched; critical: none came. */
	readonly level: Level;
	/** A drill's save: the job (as its send named it) whose readiness verdict the pane says after the text. */
	readonly drillJob?: string;
}

import type {Level} from '../core/level.js';

// What the notice source sees in a snapshot (or a link change), before episodes decide whether it becomes a notice:
// a condition that begins (`raise`) or ends (`clear`), something told once (`once`), or a job gone from its node
// (`job-gone`: every episode still open about it begins to end).

export type SignalKind = 'raise' | 'clear' | 'once' | 'job-gone';

export interface NoticeSignal {
	readonly kind: SignalKind;
	/** The episode it belongs to, stable from raise to clear: `gpu1 level ram`, `gpu1 job-hung torchrun:4200`. */
	readonly key: string;
	readonly level: Level;
	/** Epoch ms of what happened (the snapshot's clock). */
	readonly time: number;
	/** The node that saw it. */
	readonly host: string;
	readonly job: string | null;
	/** The headless --json object of what happened, with `host`; null: the episode's raise says what it was. */
	readonly record: Readonly<Record<string, unknown>> | null;
	/** What happened in words, without the node: `CRIT ram at 91.0%: …`, `ram back to 70.2%`. */
	readonly words: string;
}

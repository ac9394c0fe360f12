// Preemption readiness: "if the node were taken now, would this job save in time?", per job, as codes and figures
// (core/readiness.ts judges it, format/readiness.ts words it). Carried in the Snapshot, `ranks --json`, headless
// `{"event":"readiness"}` and the agent stream.

export type ReadinessVerdict = 'ready' | 'at-risk' | 'not-ready' | 'unknown';

/** Which verdict a reason pushes toward; `fact`: a figure behind the verdict, `note`: a trap that does not change it. */
export type ReadinessEffect = 'not-ready' | 'at-risk' | 'unknown' | 'fact' | 'note';

/** Where the lead (the time from the emergency signal to the kill) comes from. */
export type LeadSource = 'scheduler-warning' | 'grace' | 'kill-wait';

/** What a batch shell's trap for the emergency signal does (read from the batch script; null: no script read). */
export type ShellTrapKind = 'forwards' | 'requeues' | 'cancels' | 'ends' | 'ignores' | 'other' | 'none';

/**
 * One reason, as data: its code, which way it pushes, and the figures its words need. Figures are plain numbers and
 * strings so that every output (the TUI, headless, `--json`, the agent stream) carries the same thing.
 */
export interface ReadinessReason {
	readonly code: ReadinessCode;
	readonly effect: ReadinessEffect;
	/** The signal it is about: 'SIGTERM'. */
	readonly signal?: string;
	readonly rank?: number | null;
	readonly pid?: number;
	/** How many ranks (handlers) or saves (samples). */
	readonly count?: number;
	/** Seconds: a save's write time, a lead, a launcher's kill delay, work since the last save. */
	readonly seconds?: number;
	/** An exit code (the launcher's own, when a rank fails). */
	readonly exitCode?: number;
	/** A second figure in seconds: the lead a save is weighed against, the limit work is weighed against. */
	readonly limitS?: number;
	/** A launcher's name ('torchrun'), a lead's source, a trap's kind, the checkpoint a figure was read on. */
	readonly name?: string;
	/** Where a launcher's behaviour is written (file and version), for the words "(torch 2.11 api.py)". */
	readonly source?: string;
}

export type ReadinessCode =
	/** A rank has the default (terminating) disposition for the emergency signal: it dies without saving. */
	| 'no-handler'
	/** A rank ignores the emergency signal: it never saves on it. */
	| 'ignored'
	/** The warning goes to the batch shell alone (B:), and the shell has no trap for it: the ranks never see it. */
	| 'batch-shell-only'
	/** B: sends it to the shell, whose trap does something other than pass it on (requeue, cancel, exit). */
	| 'shell-trap-no-forward'
	/** B: sends it to the shell, and what the shell's trap does was not read (no batch script). */
	| 'shell-trap-unread'
	/** B: sends it to the shell, and the shell's trap passes it on with kill: the ranks get it if the trap names them. */
	| 'shell-forwards'
	/** The warning goes to the steps (no B:), so the batch shell's trap for it never runs. */
	| 'shell-trap-unreached'
	/** Checkpoints were started and none completed: the job's saves do not finish. */
	| 'saves-never-complete'
	/** The slowest save seen is longer than the lead. */
	| 'save-over-lead'
	/** More work since the last complete save than the user accepts. */
	| 'work-over-limit'
	/** The launcher passes the signal on, then SIGKILLs ranks still running after a fixed delay. */
	| 'launcher-kills'
	/** The launcher has no handler for the signal and dies of it. */
	| 'launcher-dies'
	/** The launcher reports a rank's exit code as its own fixed code: a batch script testing it never sees it. */
	| 'launcher-exit-code'
	/** No complete save seen: the save time is unknown. */
	| 'no-save-seen'
	/** No deadline known (no scheduler warning, no --grace, no kill wait). */
	| 'no-deadline'
	/** No ranks seen for the job: handlers cannot be read. */
	| 'no-ranks'
	/** Every rank handles the signal (count). */
	| 'handlers'
	/** Saves take p50 (seconds), max (limitS) over count samples. */
	| 'save-time'
	/** The lead (seconds) and where it comes from (name). */
	| 'lead'
	/** Work since the last complete save (seconds) against the limit (limitS, when one is known). */
	| 'work-since-save';

/** Write times of the job's complete saves, seconds. */
export interface SaveTimes {
	readonly p50: number;
	readonly max: number;
	readonly samples: number;
	/** The checkpoint the slowest was measured on. */
	readonly slowest: string;
}

export interface Readiness {
	/** The job (Job.id). */
	readonly job: string;
	readonly verdict: ReadinessVerdict;
	/** The signal a preemption sends (SIGTERM, or the scheduler warning's). */
	readonly signal: string;
	readonly reasons: readonly ReadinessReason[];
	readonly saveS: SaveTimes | null;
	/** Seconds from the signal to the kill, after the launcher's own limit; null: not known. */
	readonly leadS: number | null;
	readonly leadFrom: LeadSource | null;
	/** Epoch ms of the last complete save; work at risk is the time since (the views count it at their own now). */
	readonly lastSaveAt: number | null;
	/** The most work the user accepts losing, seconds; null: no limit known. */
	readonly maxWorkAtRiskS: number | null;
}

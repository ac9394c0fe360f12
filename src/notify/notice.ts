import type {Level} from '../core/level.js';

// A notice: what traintop tells the user who is not looking, one object for every sink. The command gets it as one
// JSON line on stdin, the webhook as its POST body (its `text` is what Slack-compatible receivers show as is).

/** `raised` opens an episode, `resolved` closes it (after the cool-down with the condition clear), `once` has no end. */
export type NoticeState = 'raised' | 'resolved' | 'once';

export interface Notice {
	readonly state: NoticeState;
	/** What the episode is, stable across its raise and resolve: `gpu1 level ram`, `job-hung torchrun:4200`. */
	readonly episode: string;
	/** The raise's level; a resolve is `ok`. */
	readonly level: Level;
	/** Epoch ms of what the notice tells. */
	readonly time: number;
	/** Epoch ms when the episode began (the raise's own time for a raise). */
	readonly since: number;
	/** How many times the condition came back inside the cool-down and was folded into this episode. */
	readonly repeats: number;
	/** The node's name (the one-node session: its host). */
	readonly host: string;
	/** The job, when the notice is about one. */
	readonly job: string | null;
	/**
	 * The object headless `--json` prints for what happened (an event, a level change, a readiness verdict), with
	 * `host`: what a script reading the stream already knows how to read.
	 */
	readonly record: Readonly<Record<string, unknown>>;
	/** One line for people, complete on its own: `gpu1: CRIT ram at 91.0%: at or above the 85% threshold`. */
	readonly text: string;
}

/** Where notices go. `send` never waits: a sink queues, bounds and times out its own work. */
export interface NoticeSink {
	/** `command`, `webhook`, `bell`: in the trouble it reports and the exporter's counters. */
	readonly name: string;
	send(notice: Notice): void;
	/** Stops taking notices; ends what is in flight within its timeout. */
	close(): Promise<void>;
}

/** A sink's trouble, said once per kind of trouble (the view prints it: stderr headless, after the screen in the TUI). */
export type SinkTrouble = (sink: string, message: string) => void;

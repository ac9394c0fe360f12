import type {ExitStatus} from '../core/types.js';
import type {SendResult} from '../ranks/send.js';
import type {SignalName} from '../ranks/signals.js';
import type {SignalAction} from '../session/actions.js';
import type {DetailEffect, DetailEvent} from './detail-view.js';
import type {KeyInfo} from './keymap.js';
import type {SaveFinished, SaveWatch} from './send-status.js';
import type {ProcessIdentity, RankRef} from './targets.js';

// What flows through the TUI's reducer (state.ts): the events that come in (keys with the context they
// arrive in, the results of what keys asked for) and the effects it queues for the app to run.

export type Effect =
	/**
	 * Suspend: stop the process as Ctrl-Z would outside raw mode (hooks/use-suspend.ts); the state stays as it is.
	 * Back: leave a node's view for the many-node screen (traintop --hosts).
	 */
	| {readonly kind: 'quit' | 'suspend' | 'back'}
	/**
	 * Send the action's signal to these processes of one job, as the confirm box showed them: the job and each pid
	 * are looked up in the latest scan, and a pid now held by another process (another start time) is gone.
	 */
	| {
			readonly kind: 'send';
			readonly action: SignalAction;
			readonly job: string;
			readonly identities: readonly ProcessIdentity[];
	  }
	/** Read and analyse the memory log, as report lines this wide. */
	| {readonly kind: 'analyze'; readonly width: number}
	| DetailEffect;

/** What the reducer needs to know of the screen and the session when a key comes in. */
export interface KeyContext {
	/** The rank rows, job by job, in display order: each one's pid and job. */
	readonly ranks: readonly RankRef[];
	/** Rows a page moves in the ranks list. */
	readonly page: number;
	/** Lines of the analysis box's text area. */
	readonly analysisRows: number;
	/** Rows the help lists (keys and notes, wrapped as its box wraps them): how far it scrolls. */
	readonly helpLines: number;
	/** The open confirm box's body rows and how many of them are in sight (box-text.ts confirmRows): how far it scrolls. */
	readonly confirm?: {readonly lines: number; readonly rows: number};
	/** How far `[` scrolls the alerts pane (panes/alert-window.ts alertsScrollMax); absent: it does not scroll. */
	readonly alertsScrollMax?: number;
	/** Columns the analysis report is laid out for. */
	readonly width: number;
	readonly readonly: boolean;
	/** A node's view under the many-node screen (traintop --hosts): its keys (Esc back) work. */
	readonly fleet?: boolean;
	/** The signal each action sends (the settings). */
	readonly signals: Readonly<Record<SignalAction, SignalName>>;
	/** Epoch ms. */
	readonly now: number;
}

export type UiEvent =
	/** A key press, resolved against the mode it arrives in (not the mode of the last frame). */
	| {readonly type: 'input'; readonly input: string; readonly key: KeyInfo; readonly context: KeyContext}
	/** The app took the first `count` queued effects to run them. */
	| {readonly type: 'effects-taken'; readonly count: number}
	/** A send to a job ran: each rank's outcome, and whether the save it asks for is watched. */
	| {
			readonly type: 'sent';
			readonly action: SignalAction;
			readonly signal: SignalName;
			readonly job: string;
			readonly results: readonly SendResult[];
			/** Epoch ms. */
			readonly sentAt: number;
			readonly watch: SaveWatch;
	  }
	/** A send that found nothing to send to: the job, or every chosen rank of it, is gone. */
	| {
			readonly type: 'send-skipped';
			readonly action: SignalAction;
			readonly signal: SignalName;
			readonly job: string;
			readonly reason: string;
	  }
	/**
	 * What the save watch saw for the send at `sentAt`: the checkpoint (attributed when of the kind asked
	 * for; else `note` says why it may not be the one), or none within the timeout (null).
	 */
	| ({readonly type: 'save-finished'; readonly sentAt: number} & SaveFinished)
	/** The job an emergency signal went to ended before its checkpoint was seen. */
	| {
			readonly type: 'job-exited';
			readonly sentAt: number;
			readonly signal: SignalName;
			readonly job: string;
			readonly exit: ExitStatus | null;
	  }
	| {readonly type: 'analysis-loaded'; readonly lines: readonly string[]}
	| {readonly type: 'analysis-failed'; readonly message: string}
	| DetailEvent;

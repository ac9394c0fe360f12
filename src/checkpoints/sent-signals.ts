import type {Checkpoint, SaveCadence, ScannedCheckpoint, SentSignal} from '../core/types.js';
import {withAnswers} from './signal-saves.js';

// The signals traintop sent to a run dir's job, as the watcher keeps them across rescans: the index's judgements read
// them (a save right after one is its save; a job it stops is not late).

/** Enough for any judgement on the recent saves: older signals say nothing about them. */
const SENT_SIGNALS_KEPT = 16;

export class SentSignals {
	/** Oldest first, the last SENT_SIGNALS_KEPT only. */
	#sent: readonly SentSignal[] = [];
	/**
	 * When a scan first saw each complete checkpoint (the scan's start): what a signal noted late (after the send's
	 * own awaits) counts as seen before it.
	 */
	#firstSeen = new Map<string, number>();

	get list(): readonly SentSignal[] {
		return this.#sent;
	}

	/** A signal sent: the complete checkpoints seen before it are not its save. */
	note(sent: SentSignal): void {
		const before = sent.before ?? [...this.#firstSeen].filter(([, seen]) => seen < sent.at).map(([path]) => path);
		this.#sent = [...this.#sent, {...sent, before}].slice(-SENT_SIGNALS_KEPT);
	}

	/** After a scan that started at `scanStart`: what it found (`scanned`) and the index built of it (`indexed`). */
	scanned(
		scanned: readonly ScannedCheckpoint[],
		indexed: readonly Checkpoint[],
		scanStart: number,
		priorCadence: SaveCadence | null,
	): void {
		// A signal answered stays answered by that save, even once retention deletes it (signal-saves.ts).
		this.#sent = withAnswers(scanned, this.#sent, priorCadence);
		// When each complete checkpoint was first seen; those gone are forgotten.
		const seen = new Map<string, number>();
		for (const c of indexed) if (c.status === 'complete') seen.set(c.path, this.#firstSeen.get(c.path) ?? scanStart);
		this.#firstSeen = seen;
	}
}

import {isNew, TIME_SLACK_MS} from '../checkpoints/index-change.js';
import {
	firstOther,
	type SaveExpectation,
	type SaveOutcome,
	settle,
	unattributed,
} from '../checkpoints/save-attribution.js';
import type {Checkpoint, Snapshot} from '../core/types.js';
import type {Fleet} from './fleet.js';

// A save asked for on one node of many, confirmed by its effect: the new checkpoint in that node's snapshots
// (its agent watches the run dir there), with the one-node watcher's rules for which checkpoint is the save.

/**
 * The save a signal asked for on `node`, seen in its snapshots' checkpoints as the one-node watcher sees it.
 * `noted`: the send told the agent the save's kind (every route but a raw signal), so its watcher noted the signal
 * and judged each save since (save-attribution.ts matchOf): an unknown one it left alone is not a maybe.
 */
export function awaitNodeSave(
	fleet: Pick<Fleet, 'current' | 'onSnapshot'>,
	node: string,
	sinceMs: number,
	expect: SaveExpectation,
	timeoutMs: number,
	noted = true,
): Promise<SaveOutcome> {
	const now = fleet.current().nodes.find(view => view.name === node)?.snapshot?.checkpoints?.checkpoints ?? [];
	// Called once the agent has replied, and its reply can trail the snapshot that already holds the answer: a save
	// of the kind asked for, written since the send, is that answer, not one from before.
	const answered = (c: Checkpoint) => c.kind === expect && c.time >= sinceMs - TIME_SLACK_MS;
	const before = new Set(now.filter(c => c.status === 'complete' && !answered(c)).map(c => c.path));
	let other: Checkpoint | null = null;
	return new Promise(resolve => {
		const finish = (outcome: SaveOutcome) => {
			clearTimeout(timer);
			off();
			resolve(outcome);
		};
		const look = (checkpoints: readonly Checkpoint[]) => {
			const fresh = checkpoints.filter(c => isNew(c, before, sinceMs));
			const outcome = settle(fresh, expect, noted);
			if (outcome) finish(outcome);
			else other ??= firstOther(fresh, expect, noted);
		};
		const off = fleet.onSnapshot((name: string, snapshot: Snapshot) => {
			if (name === node && snapshot.checkpoints) look(snapshot.checkpoints.checkpoints);
		});
		const timer = setTimeout(() => finish(unattributed(other, expect, timeoutMs)), timeoutMs);
		look(now);
	});
}

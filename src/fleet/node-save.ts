import {isNew} from '../checkpoints/index-change.js';
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

/** The save a signal asked for on `node`, seen in its snapshots' checkpoints as the one-node watcher sees it. */
export function awaitNodeSave(
	fleet: Pick<Fleet, 'current' | 'onSnapshot'>,
	node: string,
	sinceMs: number,
	expect: SaveExpectation,
	timeoutMs: number,
): Promise<SaveOutcome> {
	const now = fleet.current().nodes.find(view => view.name === node)?.snapshot?.checkpoints;
	const before = new Set((now?.checkpoints ?? []).filter(c => c.status === 'complete').map(c => c.path));
	let other: Checkpoint | null = null;
	return new Promise(resolve => {
		const finish = (outcome: SaveOutcome) => {
			clearTimeout(timer);
			off();
			resolve(outcome);
		};
		const off = fleet.onSnapshot((name: string, snapshot: Snapshot) => {
			if (name !== node || !snapshot.checkpoints) return;
			const fresh = snapshot.checkpoints.checkpoints.filter(c => isNew(c, before, sinceMs));
			const outcome = settle(fresh, expect);
			if (outcome) finish(outcome);
			else other ??= firstOther(fresh, expect);
		});
		const timer = setTimeout(() => finish(unattributed(other, expect, timeoutMs)), timeoutMs);
	});
}

import type {GroupChange} from './save-history.js';

// Retention learned from what the job deleted, for a group whose files declare none: a job that deletes its oldest
// checkpoint at each save and holds the count at N keeps N, whatever its framework or script. Pure.
//
// Each deletion is paired with the save it goes with: in the same scan (the common case), with the save just before
// it (HF, Orbax, TF… save, then rotate), or with the next one (Accelerate deletes down to N − 1, then saves). Which of
// the two is told by time: a rotation deletes right next to its save, so a deletion goes with the next save only when
// it is far nearer that one; most frameworks rotate after saving, so a deletion halfway (Orbax's asynchronous one on a
// fast cadence) goes with the save before. The count once both have happened is the rotation's N.

/** Rotations that must agree before keep-N is believed: one could be a person tidying up. */
const ROTATIONS_NEEDED = 2;

export interface LearnedKeep {
	readonly keep: number;
	/** The rotations it was learned from (the trailing ones that agree). */
	readonly rotations: number;
}

interface Rotation {
	readonly keep: number;
	readonly oldest: boolean;
}

/** A deletion in a scan of its own after a save: HF's rotation of that save, or Accelerate's before the next one. */
interface Undecided {
	readonly oldest: boolean;
	readonly at: number;
	/** The group's count at the deletion's scan: N if it went with the save before. */
	readonly count: number;
	readonly saveBefore: number;
}

/** The group's rotations, oldest first; `now` decides a deletion still waiting for the save it may come before. */
function rotations(changes: readonly GroupChange[], now: number): Rotation[] {
	const found: Rotation[] = [];
	/** When the last save left unpaired came; null when none waits. */
	let pendingSave: number | null = null;
	let pendingDeletions: boolean[] = [];
	let undecided: Undecided[] = [];
	const rotate = (oldest: boolean, keep: number): void => void found.push({keep, oldest});
	// With the next save only when it is far nearer that one than the save before (under half as far); else, and once
	// now is that far from it with no save since, with the save before.
	const withNext = (d: Undecided, next: number): boolean => 2 * (next - d.at) < d.at - d.saveBefore;
	const settle = (next: number): void => {
		for (const d of undecided) if (!withNext(d, next)) rotate(d.oldest, d.count);
	};
	for (const change of changes) {
		let saves = change.saved;
		const deleted = change.deleted.map(d => d.oldest);
		// Saves and deletions in one scan go together.
		while (saves > 0 && deleted.length > 0) {
			rotate(deleted.shift()!, change.count);
			saves--;
		}
		if (saves > 0) {
			// The deletions waiting: those nearer this save than the one before go with it (deleted down to N − 1 first).
			const later = undecided.filter(d => withNext(d, change.at)).map(d => d.oldest);
			settle(change.at);
			undecided = [];
			pendingDeletions = [...pendingDeletions, ...later];
			while (saves > 0 && pendingDeletions.length > 0) {
				rotate(pendingDeletions.shift()!, change.count);
				saves--;
			}
		}
		for (const oldest of deleted) {
			// Back at the count the last rotation left: the save before's rotation (Accelerate's would be one under it).
			if (pendingSave !== null && found.at(-1)?.keep === change.count) rotate(oldest, change.count);
			else if (pendingSave !== null)
				undecided.push({oldest, at: change.at, count: change.count, saveBefore: pendingSave});
			else pendingDeletions.push(oldest);
		}
		// A save left unpaired waits for its deletion; an older one still unpaired was growth (a save that deleted nothing).
		if (saves > 0) pendingSave = change.at;
		else if (deleted.length > 0) pendingSave = null;
	}
	settle(now);
	return found;
}

/**
 * keep-N once the group's last ROTATIONS_NEEDED rotations (at least) each deleted the oldest and left N; null
 * otherwise, and once the group holds more than N + 1 (it stopped deleting: one more is a save whose rotation is
 * still to come).
 */
export function learnedKeep(
	changes: readonly GroupChange[],
	group: string,
	count: number,
	now: number,
): LearnedKeep | null {
	const found = rotations(
		changes.filter(change => change.group === group),
		now,
	);
	const last = found.at(-1);
	if (!last?.oldest || last.keep < 1 || count > last.keep + 1) return null;
	let agreeing = 0;
	for (let i = found.length - 1; i >= 0 && found[i]!.oldest && found[i]!.keep === last.keep; i--) agreeing++;
	return agreeing >= ROTATIONS_NEEDED ? {keep: last.keep, rotations: agreeing} : null;
}

import type {GroupChange} from './save-history.js';

// Retention learned from what the job deleted, for a group whose files declare none: a job that deletes its oldest
// checkpoint at each save and holds the count at N keeps N, whatever its framework or script. Pure.
//
// Each deletion is paired with the save it goes with: in the same scan (the common case), with the save just before
// it (HF saves, then rotates), or with the next one (Accelerate deletes down to N − 1, then saves). Which of the two
// is told by time: a rotation deletes right next to its save, so a deletion in the first half of the gap after a save
// goes with that save, and one later with the next. The count once both have happened is the rotation's N.

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

/** The group's rotations, oldest first. */
function rotations(changes: readonly GroupChange[]): Rotation[] {
	const found: Rotation[] = [];
	let pendingSaves = 0;
	let pendingDeletions: boolean[] = [];
	// When the last two saves came: how far a deletion is from the last, against the gap between them.
	let [lastSaveAt, gapMs] = [Number.NaN, Number.NaN];
	const rotate = (oldest: boolean, keep: number): void => void found.push({keep, oldest});
	for (const change of changes) {
		let saves = change.saved;
		const deleted = change.deleted.map(d => d.oldest);
		// Saves and deletions in one scan go together.
		while (saves > 0 && deleted.length > 0) {
			rotate(deleted.shift()!, change.count);
			saves--;
		}
		// A deletion right after its save (save, then rotate); one later waits for the save it comes before.
		const afterItsSave = !(change.at - lastSaveAt > gapMs / 2);
		while (deleted.length > 0 && pendingSaves > 0 && afterItsSave) {
			rotate(deleted.shift()!, change.count);
			pendingSaves--;
		}
		// A save after its deletion (rotate down to N − 1, then save).
		while (saves > 0 && pendingDeletions.length > 0) {
			rotate(pendingDeletions.shift()!, change.count);
			saves--;
		}
		pendingDeletions = [...pendingDeletions, ...deleted];
		// A save left unpaired waits for its deletion; an older one still unpaired was growth (a save that deleted nothing).
		if (saves > 0) pendingSaves = saves;
		else if (deleted.length > 0) pendingSaves = 0;
		if (change.saved > 0) [gapMs, lastSaveAt] = [change.at - lastSaveAt, change.at];
	}
	return found;
}

/**
 * keep-N once the group's last ROTATIONS_NEEDED rotations (at least) each deleted the oldest and left N; null
 * otherwise, and once the group holds more than N + 1 (it stopped deleting: one more is a save whose rotation is
 * still to come).
 */
export function learnedKeep(changes: readonly GroupChange[], group: string, count: number): LearnedKeep | null {
	const found = rotations(changes.filter(change => change.group === group));
	const last = found.at(-1);
	if (!last?.oldest || last.keep < 1 || count > last.keep + 1) return null;
	let agreeing = 0;
	for (let i = found.length - 1; i >= 0 && found[i]!.oldest && found[i]!.keep === last.keep; i--) agreeing++;
	return agreeing >= ROTATIONS_NEEDED ? {keep: last.keep, rotations: agreeing} : null;
}

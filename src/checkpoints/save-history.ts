import type {CheckpointKind, ScannedCheckpoint} from '../core/types.js';
import {compareAge, isLastOrBest} from './rules.js';

// Every save traintop has seen in a run dir, kept across rescans by the watcher: what the job did, not what is left
// on disk. The disk shows survivors (keep-N rotation, Lightning's top-k, timm's best-k), which are no time series; the
// history keeps the saves retention deleted since, and the deletions themselves (learned-retention.ts). The first scan
// seeds it from what is on disk, marked as not seen being written: those say nothing of the pace.

/** Entries kept: far more than any judgement reads (the last few cadences, the last few rotations). */
const KEPT = 300;

/** A checkpoint's time may move by a second between scans (truncated mtimes): more than this at one path is a new save. */
const REWRITE_SLACK_MS = 1000;

export interface HistorySave {
	readonly path: string;
	readonly name: string;
	/** The checkpoint group (ScannedCheckpoint.group). */
	readonly group: string;
	readonly step: number | null;
	/** Its own time (the layout's metadata, else its mtime): when it was written. */
	readonly time: number;
	/** Epoch ms the watcher first found it complete. */
	readonly seenAt: number;
	/** Its kind as last scanned (after any relabelling by the signals traintop sent). */
	readonly kind: CheckpointKind;
	/** True: it became complete while watched. False: it was on disk at the first scan (its time is only an mtime). */
	readonly seen: boolean;
}

export interface HistoryDeletion {
	readonly path: string;
	readonly group: string;
	/** Epoch ms of the scan that found it gone. */
	readonly at: number;
	/** It was the oldest of its group's rotated checkpoints (or among the oldest, when several went at once). */
	readonly oldest: boolean;
}

/** One scan that found a group's saves or deletions: what learned retention pairs up. */
export interface GroupChange {
	readonly group: string;
	readonly at: number;
	readonly saved: number;
	readonly deleted: readonly HistoryDeletion[];
	/** The group's checkpoints that its rotation counts after the scan (what a keep-N holds: countRotated by default). */
	readonly count: number;
}

/** What counts against a keep-N rotation: complete, and not a `last` copy or a `best` mark (rules.ts's default). */
function rotated(c: ScannedCheckpoint): boolean {
	return c.status === 'complete' && !isLastOrBest(c);
}

/** How many of a group's checkpoints its rotation counts; a framework may count its best too (HF). */
export type RotationCount = (members: readonly ScannedCheckpoint[]) => number;

const countRotated: RotationCount = members => members.filter(rotated).length;

function bounded<T>(list: T[]): void {
	if (list.length > KEPT) list.splice(0, list.length - KEPT);
}

export class SaveHistory {
	readonly #saves: HistorySave[] = [];
	readonly #changes: GroupChange[] = [];
	/** The checkpoints found complete and still on disk (complete or partial again), by path; null before the first scan. */
	#present: Map<string, ScannedCheckpoint> | null = null;

	/** Every save seen or seeded, oldest first (the last KEPT). */
	get saves(): readonly HistorySave[] {
		return this.#saves;
	}

	/** Each scan that found saves or deletions in a group, oldest first (the last KEPT). */
	get changes(): readonly GroupChange[] {
		return this.#changes;
	}

	/** True once a scan has seeded it. */
	get seeded(): boolean {
		return this.#present !== null;
	}

	/**
	 * Takes one scan's checkpoints (kinds as the index will show them) at `now`. New complete ones are saves; complete
	 * ones gone (neither complete nor partial now) are deletions. A partial one is not a save yet, and one being
	 * rewritten in place (partial again) is not a deletion.
	 */
	record(checkpoints: readonly ScannedCheckpoint[], now: number, count: RotationCount = countRotated): void {
		const complete = checkpoints.filter(c => c.status === 'complete');
		const previous = this.#present;
		if (previous === null) {
			this.#present = new Map(complete.map(c => [c.path, c]));
			for (const c of [...complete].sort(compareAge).slice(-KEPT)) this.#add(c, now, false);
			return;
		}
		// Known: complete once and still on disk. One deleted file by file is partial on the way out: still known.
		const known = new Map(previous);
		const saved = new Map<string, number>();
		for (const c of complete) {
			const before = previous.get(c.path);
			known.set(c.path, c);
			if (before && Math.abs(before.time - c.time) <= REWRITE_SLACK_MS) {
				if (before.kind !== c.kind) this.#relabel(c);
				continue;
			}
			this.#add(c, now, true);
			saved.set(c.group, (saved.get(c.group) ?? 0) + 1);
		}
		const onDisk = new Set(checkpoints.map(c => c.path));
		const gone = [...previous.values()].filter(c => !onDisk.has(c.path));
		const deleted = new Map<string, HistoryDeletion[]>();
		for (const c of gone) {
			known.delete(c.path);
			const list = deleted.get(c.group) ?? [];
			list.push({path: c.path, group: c.group, at: now, oldest: oldestGone(previous, c, gone)});
			deleted.set(c.group, list);
		}
		this.#present = known;
		for (const group of new Set([...saved.keys(), ...deleted.keys()])) {
			const members = checkpoints.filter(c => c.group === group);
			const [n, gone] = [saved.get(group) ?? 0, deleted.get(group) ?? []];
			this.#changes.push({group, at: now, saved: n, deleted: gone, count: count(members)});
		}
		bounded(this.#changes);
	}

	#add(c: ScannedCheckpoint, now: number, seen: boolean): void {
		const {path, name, group, step, time, kind} = c;
		this.#saves.push({path, name, group, step, time, seenAt: now, kind, seen});
		bounded(this.#saves);
	}

	/** A kind can change after the save (HF's best mark moves on): the history keeps the latest. */
	#relabel(c: ScannedCheckpoint): void {
		for (let i = this.#saves.length - 1; i >= 0; i--) {
			const save = this.#saves[i]!;
			if (save.path !== c.path) continue;
			if (save.kind !== c.kind) this.#saves[i] = {...save, kind: c.kind};
			return;
		}
	}
}

/**
 * Whether `c`, gone since the last scan, was among the oldest of its group's rotated checkpoints: no rotated one that
 * stayed is older than it (several may go at once when a scan catches two rotations).
 */
function oldestGone(
	previous: ReadonlyMap<string, ScannedCheckpoint>,
	c: ScannedCheckpoint,
	gone: readonly ScannedCheckpoint[],
): boolean {
	if (!rotated(c)) return false;
	const goneNow = new Set(gone.map(g => g.path));
	for (const other of previous.values()) {
		if (other.group !== c.group || goneNow.has(other.path) || !rotated(other)) continue;
		if (compareAge(other, c) < 0) return false;
	}
	return true;
}

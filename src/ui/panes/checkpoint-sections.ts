import type {Checkpoint, CheckpointIndex, RetentionGroup} from '../../core/types.js';

// What the checkpoints pane lists under its header, as pure data: each checkpoint group (one framework's checkpoints
// in one directory) under a heading that names the framework and its retention rule, newest group first, each
// newest first; cut to the rows there are, with "+N older" last when some are left out.

export type PaneItem =
	| {readonly kind: 'group'; readonly group: RetentionGroup}
	| {readonly kind: 'row'; readonly checkpoint: Checkpoint}
	| {readonly kind: 'older'; readonly count: number};

interface Section {
	readonly group: RetentionGroup | null;
	/** Newest first. */
	readonly checkpoints: Checkpoint[];
}

/** Sections in the order shown: the group written to last first (what the job is doing now). */
function sections(index: CheckpointIndex): Section[] {
	const byKey = new Map<string, Section>();
	for (const c of [...index.checkpoints].reverse()) {
		let section = byKey.get(c.group);
		if (section === undefined) {
			const group = index.retention.groups.find(g => g.key === c.group) ?? null;
			section = {group, checkpoints: []};
			byKey.set(c.group, section);
		}
		section.checkpoints.push(c);
	}
	const newest = (s: Section): number => Math.max(...s.checkpoints.map(c => c.time));
	return [...byKey.values()].sort((a, b) => newest(b) - newest(a));
}

/**
 * Headings the pane draws with room for them: one per group with checkpoints (a checkpoint of no known group gets
 * none). The narrow form draws them only to tell two or more groups apart: there a lone group's rule costs a row
 * the timeline needs (`traintop checkpoints` and the wide form say it).
 */
export function headingCount(index: CheckpointIndex, compact: boolean): number {
	const named = sections(index).filter(s => s.group !== null).length;
	return compact && named < 2 ? 0 : named;
}

/** Below this many rows the checkpoints themselves matter more than their headings. */
const ROOM_FOR_HEADINGS = 4;

/**
 * Up to `room` items; when everything does not fit, the last is "+N older" (N checkpoints not listed). Headings only
 * with ROOM_FOR_HEADINGS rows or more, and as headingCount says.
 */
export function paneItems(index: CheckpointIndex, room: number, compact: boolean): PaneItem[] {
	if (room <= 0) return [];
	const headings = room >= ROOM_FOR_HEADINGS && headingCount(index, compact) > 0;
	const all: PaneItem[] = [];
	for (const section of sections(index)) {
		if (section.group !== null && headings) all.push({kind: 'group', group: section.group});
		for (const checkpoint of section.checkpoints) all.push({kind: 'row', checkpoint});
	}
	if (all.length <= room) return all;
	// One row: the newest checkpoint itself, not a heading.
	if (room === 1) return all.filter(item => item.kind === 'row').slice(0, 1);
	const shown = all.slice(0, Math.max(1, room - 1));
	// A heading with none of its rows under it says nothing: leave it to the "+N older" line.
	while (shown.length > 1 && shown.at(-1)?.kind === 'group') shown.pop();
	const listed = shown.filter(item => item.kind === 'row').length;
	return [...shown, {kind: 'older', count: index.checkpoints.length - listed}];
}

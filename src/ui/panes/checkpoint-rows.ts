import type {Checkpoint, CheckpointIndex, RetentionGroup} from '../../core/types.js';
import {rotationKeepsUsageFlat} from '../../checkpoints/retention.js';
import {
	declaredCadenceWords,
	groupHeading,
	nextSaveText,
	noSaveText,
	overdueText,
	PARTIAL_MARK,
	RETENTION_MARK,
} from '../../format/checkpoints.js';
import {padEnd, padStart} from '../../format/columns.js';
import {formatAge} from '../../format/duration.js';
import {formatBytes} from '../../format/units.js';
import {printable} from '../../format/printable.js';

// Pure text for CheckpointsPane: the header's parts and each timeline row's cells.

export const NO_RUN_DIR = 'no run dir: pass RUN_DIR to watch checkpoints';

/** Saves left before the disk is full at which the header calls it out. */
const DISK_LOW_SAVES = 3;

export interface HeaderPart {
	readonly text: string;
	/** Needs attention: drawn bold and coloured (the text itself says why, for NO_COLOR). */
	readonly alarm: boolean;
}

/** The clock the index's last save was aged to (watch.ts renews it every second): what "in 1 min" counts from. */
function indexNow(index: CheckpointIndex): number {
	const last = index.lastSave;
	return last ? Math.max(index.scannedAt, last.time + last.ageS * 1000) : index.scannedAt;
}

/**
 * `last save 30 s ago`, with the newer save's kind when it was a manual or emergency one; OVERDUE first when the next
 * periodic save is late, saying which save and by how much: `OVERDUE: the save due at step 900 (~10:42:07) has not
 * come; 1 m 40 s late (every 300 steps at 3.0 steps/s); last save (manual) 5 s ago`. The cadence's own words (the next
 * save, or learning) are a part of their own (nextSavePart).
 */
function lastSavePart(index: CheckpointIndex, compact: boolean): HeaderPart {
	const last = index.lastSave;
	if (!last) return {text: noSaveText(index), alarm: false};
	const newest = index.checkpoints.find(
		c => c.status === 'complete' && c.time === last.time && (c.kind === 'manual' || c.kind === 'emergency'),
	);
	const text = `last save${newest ? ` (${newest.kind})` : ''} ${formatAge(last.ageS)} ago`;
	if (!last.overdue) return {text, alarm: false};
	const now = indexNow(index);
	const cadence = index.cadence;
	if (compact && cadence?.nextAt != null)
		return {text: `OVERDUE ${formatAge(Math.max(0, (now - cadence.nextAt) / 1000))} late; ${text}`, alarm: true};
	// Without a cadence (an index built by hand) the words give the last periodic save's age: the newest save's only
	// when it is another one.
	const bare = !cadence && (last.periodicTime ?? last.time) === last.time;
	return {text: `OVERDUE: ${overdueText(index, now)}${bare ? '' : `; ${text}`}`, alarm: true};
}

/** `next save ~step 900 in 1 min (every 300 steps at 3.0 steps/s)`, or `cadence: learning (…)`; none when overdue. */
function nextSavePart(index: CheckpointIndex, compact: boolean): HeaderPart[] {
	if (index.lastSave?.overdue) return [];
	const text = nextSaveText(index, indexNow(index), compact);
	return text === null ? [] : [{text, alarm: false}];
}

/** `1 save seen`, `50 saves seen`: saves traintop saw land since it started (they are not alerts). */
function savesSeenText(count: number): string {
	return `${count} save${count === 1 ? '' : 's'} seen`;
}

/**
 * After the title: last save (OVERDUE first when it is), the saves seen since traintop started (`savesSeen`, when
 * any), the next save expected (or why the cadence is not known yet), disk free and saves until full. Those two go
 * after the disk's parts when those hold DISK FULL: a line cut at the pane's width drops its end, and an alarm must
 * not be what goes.
 */
export function headerParts(index: CheckpointIndex, compact: boolean, savesSeen = 0): HeaderPart[] {
	// The first scan still running (or failed): no count, no disk yet, only why.
	if (index.scanning) return [lastSavePart(index, compact)];
	const head: HeaderPart[] = [{text: String(index.checkpoints.length), alarm: false}, lastSavePart(index, compact)];
	const diskParts: HeaderPart[] = [];
	const {disk} = index;
	if (disk.freeBytes !== null) {
		const total = !compact && disk.totalBytes !== null ? ` of ${formatBytes(disk.totalBytes)}` : '';
		diskParts.push({text: `${formatBytes(disk.freeBytes)} free${total}`, alarm: false});
	}
	if (disk.savesUntilFull !== null) {
		const n = disk.savesUntilFull;
		const low = n <= DISK_LOW_SAVES;
		const saves = `~${n} save${n === 1 ? '' : 's'}`;
		const room = compact ? `${saves} fit` : `room for ${saves}`;
		diskParts.push(low ? {text: `DISK FULL in ${saves}`, alarm: true} : {text: room, alarm: false});
	} else if (rotationKeepsUsageFlat(index)) {
		diskParts.push({text: 'rotation keeps usage flat', alarm: false});
	}
	// The saves seen before the next save's words, which can be long (why the cadence is still being learned).
	const seen: HeaderPart[] = savesSeen > 0 ? [{text: savesSeenText(savesSeen), alarm: false}] : [];
	const next = nextSavePart(index, compact);
	return diskParts.some(part => part.alarm)
		? [...head, ...diskParts, ...seen, ...next]
		: [...head, ...seen, ...next, ...diskParts];
}

export interface RowCells {
	/** Step, age, size and kind: `step 1510    60 s ago   100 MiB  periodic ` */
	readonly main: string;
	/** `PARTIAL` (still being written, or abandoned), padded when more follows; else blanks or ''. */
	readonly partial: string;
	/** `PRUNE NEXT` (keep-N deletes it at the next save) or `protected`, padded when the name follows. */
	readonly retention: string;
	/** Wide form only: the checkpoint's name. */
	readonly name: string;
}

/** Digits of the widest step among `checkpoints`, so that rows line up. */
export function stepWidth(checkpoints: readonly Checkpoint[]): number {
	return Math.max(1, ...checkpoints.map(c => (c.step === null ? 1 : String(c.step).length)));
}

export function rowCells(c: Checkpoint, now: number, digits: number, compact: boolean): RowCells {
	const step = `step ${padStart(c.step === null ? '-' : String(c.step), digits)}`;
	const age = `${padStart(formatAge(Math.max(0, (now - c.time) / 1000)), 6)} ago`;
	const name = compact ? '' : printable(c.name);
	const retention = RETENTION_MARK[c.retention];
	const partial = c.status === 'partial' ? PARTIAL_MARK : '';
	// Pad a column only when something follows it: trailing blanks would end in a misleading "…" when cut.
	return {
		main: `${step}  ${age}  ${padStart(formatBytes(c.bytes), 8)}  ${retention || partial || name ? padEnd(c.kind, 9) : c.kind}`,
		partial: retention || name ? padEnd(partial, 7) : partial,
		retention: name ? padEnd(retention, 10) : retention,
		name,
	};
}

export function olderText(hidden: number): string {
	return `+${hidden} older`;
}

/**
 * A group's rule line: the framework, its rule and the file keep came from; wide, with the cadence its files declare
 * (`· every 10 steps`). `traintop checkpoints` lists every fact; the pane has one line.
 */
export function groupRuleText(group: RetentionGroup, compact: boolean): string {
	const heading = groupHeading(group, compact);
	const words = compact || group.cadence === undefined ? '' : declaredCadenceWords(group.cadence);
	return words === '' ? heading : `${heading} · ${words}`;
}

import type {Checkpoint, CheckpointIndex, RetentionGroup} from '../../core/types.js';
import {rotationKeepsUsageFlat} from '../../checkpoints/retention.js';
import {
	cadenceWords,
	groupHeading,
	noSaveText,
	overdueFigures,
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

/**
 * `last save 30 min ago (usually every 15 min)`, OVERDUE first when it is. OVERDUE counts from the last periodic save,
 * so when a manual or emergency save came after it the text gives that periodic save's age, then the newer save's:
 * `OVERDUE: last save 5 s ago` right after a manual save would read as a contradiction.
 */
function lastSavePart(index: CheckpointIndex, compact: boolean): HeaderPart {
	const last = index.lastSave;
	if (!last) return {text: noSaveText(index), alarm: false};
	const usual = !compact && last.medianIntervalS !== null ? ` (usually every ${formatAge(last.medianIntervalS)})` : '';
	const text = `last save ${formatAge(last.ageS)} ago${usual}`;
	if (!last.overdue) return {text, alarm: false};
	// An index built before periodicTime existed has none: overdue then counts from the last save, as in lastSaveAt.
	const periodicTime = last.periodicTime === undefined ? last.time : last.periodicTime;
	const overdueAge = (ageS: number): string => {
		// The figures shown must say why it is overdue: as many decimals as that takes (format/checkpoints.ts).
		const figures = overdueFigures(ageS, last.medianIntervalS ?? 0);
		return `${figures.age} ago${usual === '' ? '' : ` (usually every ${figures.usual})`}`;
	};
	if (periodicTime === null || periodicTime === last.time)
		return {text: `OVERDUE: last save ${overdueAge(last.ageS)}`, alarm: true};
	// ageS is as of the index's `now`; the periodic save is older by the gap between the two times.
	const periodicAgeS = last.ageS + (last.time - periodicTime) / 1000;
	const newest = index.checkpoints.find(
		c => c.status === 'complete' && c.time === last.time && c.kind !== 'periodic' && c.kind !== 'unknown',
	);
	const since = `${newest?.kind ?? 'last save'} ${formatAge(last.ageS)} ago`;
	return {text: `OVERDUE: last periodic save ${overdueAge(periodicAgeS)}; ${since}`, alarm: true};
}

/** `1 save seen`, `50 saves seen`: saves traintop saw land since it started (they are not alerts). */
function savesSeenText(count: number): string {
	return `${count} save${count === 1 ? '' : 's'} seen`;
}

/**
 * After the title: last save (OVERDUE first when it is), the saves seen since traintop started (`savesSeen`, when
 * any), disk free and saves until full. The saves seen go after the disk's parts when those hold DISK FULL: a line
 * cut at the pane's width drops its end, and an alarm must not be what goes.
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
	const seen: HeaderPart[] = savesSeen > 0 ? [{text: savesSeenText(savesSeen), alarm: false}] : [];
	return diskParts.some(part => part.alarm) ? [...head, ...diskParts, ...seen] : [...head, ...seen, ...diskParts];
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
	const words = compact || group.cadence === undefined ? '' : cadenceWords(group.cadence);
	return words === '' ? heading : `${heading} · ${words}`;
}

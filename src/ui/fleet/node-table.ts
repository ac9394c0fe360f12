import type {Level} from '../../core/types.js';
import {columns, padEnd, padStart, truncate} from '../../format/columns.js';
import {LEVEL_TAG, LEVEL_WORD} from '../../format/levels.js';
import {scrollWindow} from '../scroll.js';
import type {NodeOrder, NodeRow} from './node-rows.js';

// Pure layout and text of the nodes pane: which columns fit a width (fewer columns first, then fewer rows), each
// row's cells, the title, and the window of rows drawn with a "+N more" line that says what it hides.

export interface NodeColumns {
	readonly nameWidth: number;
	readonly swap: boolean;
	/** The GPUs' mean memory (the max always shows). */
	readonly mean: boolean;
	/** Columns of the note (why lost, skew, stuck ranks); 0: no note column. */
	readonly noteWidth: number;
}

/** The selection mark and a space: `› `. */
const LEAD = 2;
const WIDTH = {level: 4, link: 12, ram: 7, swap: 6, gpu: 6, mean: 6, ranks: 7} as const;
/**
 * Names (with their address, `gpu1 at 10.0.0.1`) longer than this are cut (`…`): the numbers after them matter more,
 * and the node's own view (Enter) names it in full.
 */
const NAME_MAX = 16;
/** A note narrower than this says too little to be worth its column. */
const NOTE_MIN = 8;

/** Columns for `width`: name, level, agent, RAM, GPU max and ranks always; then swap, GPU mean and the note if they fit. */
export function nodeColumns(rows: readonly NodeRow[], width: number): NodeColumns {
	const nameWidth = Math.min(NAME_MAX, Math.max(4, ...rows.map(row => columns(row.label))));
	let used = LEAD + nameWidth + 1 + WIDTH.level + 1 + WIDTH.link + 1 + WIDTH.ram + 1 + WIDTH.gpu + 1 + WIDTH.ranks;
	const take = (w: number): boolean => {
		if (used + 1 + w > width) return false;
		used += 1 + w;
		return true;
	};
	const swap = take(WIDTH.swap);
	const mean = take(WIDTH.mean);
	const room = width - used - 1;
	return {nameWidth, swap, mean, noteWidth: room >= NOTE_MIN ? room : 0};
}

/** A cell's text and the level it is coloured by; null: plain. */
export interface Segment {
	readonly text: string;
	readonly level: Level | null;
}

const LINK_LEVEL: Readonly<Record<NodeRow['state'], Level | null>> = {
	connecting: null,
	connected: 'ok',
	stale: 'warn',
	lost: 'critical',
};

/** A value right-aligned, coloured only when it needs a look (an ok value stays plain: the eye goes to the rest). */
const value = (text: string, level: Level, width: number): Segment => ({
	text: padStart(text, width),
	level: level === 'ok' ? null : level,
});

/** The row's cells after the lead, in column order. */
export function rowSegments(row: NodeRow, cols: NodeColumns): Segment[] {
	// RAM against a cgroup limit carries a `*`; the others keep its column, so the percents line up.
	const ram = row.ramLimit ? row.ram.text : `${row.ram.text} `;
	return [
		{text: padEnd(truncate(row.label, cols.nameWidth), cols.nameWidth), level: null},
		{text: LEVEL_TAG[row.level], level: row.level},
		{text: padEnd(truncate(row.link, WIDTH.link), WIDTH.link), level: LINK_LEVEL[row.state]},
		value(ram, row.ram.level, WIDTH.ram),
		...(cols.swap ? [value(row.swap.text, row.swap.level, WIDTH.swap)] : []),
		value(row.gpuMax.text, row.gpuMax.level, WIDTH.gpu),
		...(cols.mean ? [value(row.gpuMean.text, row.gpuMean.level, WIDTH.mean)] : []),
		value(row.ranks.text, row.ranks.level, WIDTH.ranks),
		...(cols.noteWidth > 0 && row.note !== '' ? [{text: truncate(row.note, cols.noteWidth), level: null}] : []),
	];
}

/** The row as plain text, lead included: what the pane draws without its colours. */
export function rowText(row: NodeRow, cols: NodeColumns, selected: boolean): string {
	return `${selected ? '›' : ' '} ${rowSegments(row, cols)
		.map(segment => segment.text)
		.join(' ')}`;
}

/** The column header over the rows. */
export function nodeHeaderText(cols: NodeColumns): string {
	return [
		' '.repeat(LEAD - 1),
		padEnd('NODE', cols.nameWidth),
		padEnd('LVL', WIDTH.level),
		padEnd('AGENT', WIDTH.link),
		padStart('RAM ', WIDTH.ram),
		...(cols.swap ? [padStart('SWAP', WIDTH.swap)] : []),
		padStart('GPUmax', WIDTH.gpu),
		...(cols.mean ? [padStart('mean', WIDTH.mean)] : []),
		padStart('RANKS', WIDTH.ranks),
		...(cols.noteWidth > 0 ? ['NOTE'] : []),
	].join(' ');
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** After NODES: `4 nodes · 3 connected · 1 lost · worst first · RAM* against a cgroup limit`. */
export function nodesTitle(rows: readonly NodeRow[], order: NodeOrder): string {
	const count = (state: NodeRow['state']) => rows.filter(row => row.state === state).length;
	const states = (['connected', 'connecting', 'stale', 'lost'] as const)
		.filter(state => count(state) > 0)
		.map(state => `${count(state)} ${state}`);
	return [
		plural(rows.length, 'node'),
		...states,
		...(order === 'worst' ? ['worst first'] : []),
		...(rows.some(row => row.ramLimit) ? ['RAM* against a cgroup limit'] : []),
	].join(' · ');
}

/** What a "+N more" line hides that needs a look: lost and stale nodes, then the others by level. */
function hiddenTrouble(hidden: readonly NodeRow[]): string[] {
	const lost = hidden.filter(row => row.state === 'lost').length;
	const stale = hidden.filter(row => row.state === 'stale').length;
	const linked = hidden.filter(row => row.state !== 'lost' && row.state !== 'stale');
	const at = (level: Level) => linked.filter(row => row.level === level).length;
	return [
		...(lost > 0 ? [`${lost} lost`] : []),
		...(stale > 0 ? [`${stale} stale`] : []),
		...(['critical', 'warn'] as const).filter(level => at(level) > 0).map(level => `${at(level)} ${LEVEL_WORD[level]}`),
	];
}

export interface NodesWindow {
	/** The rows drawn: [start, end) of the ordered rows. */
	readonly start: number;
	readonly end: number;
	/** The "+N more" line, when rows do not fit; null when they all do. */
	readonly more: string | null;
}

/**
 * The rows that fit in `rows` lines (the title and the header are not counted here) around the cursor; with too
 * many, one line goes to `+58 more (3 above, 55 below): 2 lost, 1 CRIT`, so no lost node is hidden unsaid.
 */
export function nodesWindow(all: readonly NodeRow[], cursor: number, rows: number): NodesWindow {
	const lines = Math.max(0, Math.floor(rows));
	if (all.length <= lines) return {start: 0, end: all.length, more: null};
	const visible = lines >= 2 ? lines - 1 : lines;
	const {start, end} = scrollWindow(all.length, cursor, visible);
	const hidden = [...all.slice(0, start), ...all.slice(end)];
	const trouble = hiddenTrouble(hidden);
	const more = `+${hidden.length} more (${start} above, ${all.length - end} below)${trouble.length > 0 ? `: ${trouble.join(', ')}` : ''}`;
	return {start, end, more: lines >= 2 ? more : null};
}

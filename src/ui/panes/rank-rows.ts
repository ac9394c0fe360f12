import type {RankProcess, SignalState} from '../../core/types.js';
import type {RankMemory} from '../../core/memory-types.js';
import {columns, padEnd, padStart, truncate} from '../../format/columns.js';
import {searchText} from '../../format/jobs.js';
import {signalMark, signalName} from '../../format/signals.js';
import {formatBytes} from '../../format/units.js';
import {WATCHED_SIGNALS} from '../../ranks/signals.js';

// Pure text for RanksPane's rank rows: the column header and the fixed columns of each row (job-rows.ts
// has the titles and job headers).

/** The signals a compact row shows: those a save or preemption uses. */
const COMPACT_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGUSR1', 'SIGUSR2'] as const;

function shownSignals(compact: boolean): readonly string[] {
	return compact ? COMPACT_SIGNALS : WATCHED_SIGNALS;
}

export const DEFAULT_SEARCH_HINT = searchText({kind: 'env'}, true);

const COLUMNS = {rank: 4, pid: 7, state: 2, cpu: 5, rss: 8, gpu: 8, workers: 3} as const;
/** The PSS column, after RSS: wide rows only, and only where a rank's PSS and RSS differ (pssColumn). */
const PSS_WIDTH = 8;

/** The host column (the many-node screen's ranks), and the space after it; nothing when `hostWidth` is 0. */
function hostColumn(host: string, hostWidth: number): string {
	return hostWidth > 0 ? `${padEnd(truncate(host, hostWidth), hostWidth)} ` : '';
}

/**
 * The column header; `signalsWidth` places COMMAND above the commands (wide form only); `hostWidth` > 0 puts a
 * HOST column first (ranks of several nodes); `pss` a PSS column after RSS.
 */
export function headerText(compact: boolean, signalsWidth: number, hostWidth = 0, pss = false): string {
	const fixed = [
		padStart('RANK', COLUMNS.rank),
		padStart('PID', COLUMNS.pid),
		padEnd('ST', COLUMNS.state),
		padStart('CPU%', COLUMNS.cpu),
		padStart('RSS', COLUMNS.rss),
		...(pss ? [padStart('PSS', PSS_WIDTH)] : []),
		padStart('GPU', COLUMNS.gpu),
		padStart('WRK', COLUMNS.workers),
	].join(' ');
	const signals = compact ? 'SIGNALS' : `${padEnd('SIGNALS', signalsWidth)} COMMAND`;
	return `   ${hostColumn('HOST', hostWidth)}${fixed} ${signals}`;
}

/** The state column: `T` when stopped (t, a tracing stop, reads the same), `S!` when stalled, else the letter. */
function stateText(rank: RankProcess): string {
	if (rank.stopped) return 'T';
	return rank.stalled ? `${rank.state}!` : rank.state;
}

/**
 * Everything before the signals: (the host,) rank, pid, state, CPU, RSS, (PSS,) GPU memory, workers. RSS is the rank's
 * with its DataLoader workers' where its `memory` was read (the rank's own VmRSS before), PSS theirs by PSS.
 */
export function fixedColumns(rank: RankProcess, hostWidth = 0, memory: RankMemory | null = null, pss = false): string {
	return (
		hostColumn(rank.host, hostWidth) +
		[
			padStart(rank.rank === null ? '?' : String(rank.rank), COLUMNS.rank),
			padStart(String(rank.pid), COLUMNS.pid),
			padEnd(stateText(rank), COLUMNS.state),
			padStart(rank.cpuPercent === null ? '-' : `${rank.cpuPercent.toFixed(0)}%`, COLUMNS.cpu),
			padStart(formatBytes(memory === null ? rank.rssBytes : memory.rssBytes), COLUMNS.rss),
			...(pss ? [padStart(formatBytes(memory?.pssBytes ?? null), PSS_WIDTH)] : []),
			padStart(formatBytes(rank.gpuMemoryBytes), COLUMNS.gpu),
			padStart(String(rank.workers.length), COLUMNS.workers),
		].join(' ')
	);
}

export interface SignalCell {
	/** `TERM` */
	readonly name: string;
	/** signalMark's text (`✓`, `✗`, `ign`, `-`, with `B`/`P`), `?` when unknown. */
	readonly mark: string;
	readonly state: SignalState | null;
}

/**
 * The cells a row shows. Compact rows put the signals the keys send first (`first`: the save and the emergency
 * signal) and, given `room` columns, keep only what fits: at 60 columns the save signal's mark is what must stay.
 */
export function signalCells(
	rank: RankProcess,
	compact: boolean,
	first: readonly string[] = [],
	room = Number.POSITIVE_INFINITY,
): SignalCell[] {
	const order = compact ? [...new Set([...first, ...shownSignals(true)])] : shownSignals(false);
	const cells = order.map(signal => {
		const state = rank.signals[signal] ?? null;
		return {name: signalName(signal), mark: state ? signalMark(state) : '?', state};
	});
	let kept = cells.length;
	while (kept > 1 && columns(signalsText(cells.slice(0, kept))) > room) kept--;
	return cells.slice(0, kept);
}

/** The fixed columns' width: each column's width and a space between them. */
const FIXED_WIDTH = Object.values(COLUMNS).reduce((sum, w) => sum + w + 1, -1);

/** Columns a compact row has for its signals: the width less the cursor/mark lead, the fixed columns and a space. */
export function signalRoom(width: number, hostWidth = 0): number {
	return width - 3 - (hostWidth > 0 ? hostWidth + 1 : 0) - FIXED_WIDTH - 1;
}

/** The signal cells as plain text: `TERM✓ INT✓ USR1✓ USR2✗`. */
export function signalsText(cells: readonly SignalCell[]): string {
	return cells.map(c => `${c.name}${c.mark}`).join(' ');
}

/** The "+N more" line under a scrolled list: the ranks not drawn above and below it. */
export function moreText(above: number, below: number): string {
	return `+${above + below} more: ${above} above, ${below} below`;
}

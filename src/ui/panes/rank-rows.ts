import type {RankProcess, RankSet, SignalState} from '../../core/types.js';
import {padEnd, padStart, truncate} from '../../format/columns.js';
import {compactCommand} from '../../format/command-line.js';
import {signalMark, signalName} from '../../format/signals.js';
import {formatBytes} from '../../format/units.js';
import {WATCHED_SIGNALS} from '../../ranks/signals.js';

// Pure text for RanksPane: the title, the column header and the fixed columns of each row.

/** The signals a compact row shows: those a save or preemption uses. */
const COMPACT_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGUSR1', 'SIGUSR2'] as const;

function shownSignals(compact: boolean): readonly string[] {
	return compact ? COMPACT_SIGNALS : WATCHED_SIGNALS;
}

export const DEFAULT_SEARCH_HINT =
	'looking for your processes with RANK, LOCAL_RANK or SLURM_PROCID set; use --pid or --match';

const COLUMNS = {rank: 4, pid: 7, state: 2, cpu: 5, rss: 8, gpu: 8, workers: 3} as const;

/** The column header; `signalsWidth` places COMMAND above the commands (wide form only). */
export function headerText(compact: boolean, signalsWidth: number): string {
	const fixed = [
		padStart('RANK', COLUMNS.rank),
		padStart('PID', COLUMNS.pid),
		padEnd('ST', COLUMNS.state),
		padStart('CPU%', COLUMNS.cpu),
		padStart('RSS', COLUMNS.rss),
		padStart('GPU', COLUMNS.gpu),
		padStart('WRK', COLUMNS.workers),
	].join(' ');
	return `   ${fixed} ${compact ? 'SIGNALS' : `${padEnd('SIGNALS', signalsWidth)} COMMAND`}`;
}

/** Everything before the signals: rank, pid, state (`S!` when stalled), CPU, RSS, GPU memory, workers. */
export function fixedColumns(rank: RankProcess): string {
	return [
		padStart(rank.rank === null ? '?' : String(rank.rank), COLUMNS.rank),
		padStart(String(rank.pid), COLUMNS.pid),
		padEnd(rank.stalled ? `${rank.state}!` : rank.state, COLUMNS.state),
		padStart(rank.cpuPercent === null ? '-' : `${rank.cpuPercent.toFixed(0)}%`, COLUMNS.cpu),
		padStart(formatBytes(rank.rssBytes), COLUMNS.rss),
		padStart(formatBytes(rank.gpuMemoryBytes), COLUMNS.gpu),
		padStart(String(rank.workers.length), COLUMNS.workers),
	].join(' ');
}

export interface SignalCell {
	/** `TERM` */
	readonly name: string;
	/** signalMark's text (`✓`, `✗`, `ign`, `-`, with `B`/`P`), `?` when unknown. */
	readonly mark: string;
	readonly state: SignalState | null;
}

export function signalCells(rank: RankProcess, compact: boolean): SignalCell[] {
	return shownSignals(compact).map(signal => {
		const state = rank.signals[signal] ?? null;
		return {name: signalName(signal), mark: state ? signalMark(state) : '?', state};
	});
}

/** The signal cells as plain text: `TERM✓ INT✓ USR1✓ USR2✗`. */
export function signalsText(cells: readonly SignalCell[]): string {
	return cells.map(c => `${c.name}${c.mark}`).join(' ');
}

/**
 * `RANKS 8 (world 8) · target: all · 1 STALLED · SLURM 998.0, 1 restart · launcher 4242 torchrun …`;
 * the pane truncates it to its width, so the most urgent parts come first.
 */
export function titleParts(set: RankSet, marked: ReadonlySet<number>, error: string | null): string[] {
	const {ranks} = set;
	const world = ranks.find(r => r.worldSize !== null)?.worldSize;
	const parts = [`${ranks.length}${world ? ` (world ${world})` : ''}`];
	const targets = ranks.filter(r => marked.has(r.pid)).length;
	parts.push(targets === 0 ? 'target: all' : `target: ${targets} marked`);
	const stalled = ranks.filter(r => r.stalled).length;
	if (stalled > 0) parts.push(`${stalled} STALLED`);
	if (error) parts.push(`last scan failed: ${error}`);
	const slurm = ranks.find(r => r.slurm)?.slurm;
	if (slurm) {
		// job.step, as squeue and sacct write it; restarts only once there have been some.
		const restarts =
			slurm.restartCount === 0 ? '' : `, ${slurm.restartCount} restart${slurm.restartCount === 1 ? '' : 's'}`;
		parts.push(`SLURM ${slurm.jobId}${slurm.stepId === null ? '' : `.${slurm.stepId}`}${restarts}`);
	}
	if (set.launcher) parts.push(`launcher ${set.launcher.pid} ${truncate(compactCommand(set.launcher.cmd), 40)}`);
	return parts;
}

/** The "+N more" line under a scrolled list. */
export function moreText(count: number, start: number, end: number): string {
	return `+${count - (end - start)} more: ${start} above, ${count - end} below`;
}

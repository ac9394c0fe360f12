import {table} from './table.js';
import type {RankProcess, RankSet} from '../core/types.js';
import {WATCHED_SIGNALS} from '../ranks/signals.js';
import {truncate} from '../format/columns.js';
import {compactCommand} from '../format/command-line.js';
import {SIGNAL_LEGEND, signalMark, signalName} from '../format/signals.js';
import {formatBytesShort} from '../format/units.js';

// Pure text and JSON for `traintop ranks`. The TUI's ranks pane shows the same signal marks (format/signals.ts).

/** The readable table: one row per rank with its signal marks, then the launcher and SLURM lines. */
export function formatRanks(set: RankSet, width = 120): string {
	if (set.ranks.length === 0) return 'no ranks found';
	const header = ['RANK', 'LOCAL', 'PID', 'ST', 'CPU%', 'RSS', 'GPU', 'WRK', ...WATCHED_SIGNALS.map(signalName), 'CMD'];
	const rows = set.ranks.map((r: RankProcess) => [
		r.rank === null ? '?' : String(r.rank),
		r.localRank === null ? '-' : String(r.localRank),
		String(r.pid),
		r.stalled ? `${r.state}!` : r.state,
		r.cpuPercent === null ? '-' : r.cpuPercent.toFixed(0),
		formatBytesShort(r.rssBytes),
		formatBytesShort(r.gpuMemoryBytes),
		String(r.workers.length),
		...WATCHED_SIGNALS.map(signal => (r.signals[signal] ? signalMark(r.signals[signal]) : '?')),
		compactCommand(r.cmd),
	]);
	const lines = table([header, ...rows]).map(line => truncate(line, width));
	const world = set.ranks.find(r => r.worldSize !== null)?.worldSize;
	const summary = [
		`${set.ranks.length} rank${set.ranks.length === 1 ? '' : 's'}${world ? ` of world size ${world}` : ''} on ${set.ranks[0]!.host}`,
	];
	summary.push(set.launcher ? `launcher: pid ${set.launcher.pid} ${set.launcher.cmd}` : 'launcher: none found');
	const slurm = set.ranks.find(r => r.slurm)?.slurm;
	if (slurm)
		summary.push(
			`SLURM job ${slurm.jobId}${slurm.stepId === null ? '' : ` step ${slurm.stepId}`}, restarts ${slurm.restartCount}`,
		);
	const stalled = set.ranks.filter(r => r.stalled);
	if (stalled.length > 0)
		summary.push(
			`stalled (no CPU time for the stall window): ${stalled.map(r => `rank ${r.rank ?? '?'} (pid ${r.pid})`).join(', ')}`,
		);
	return [...lines, '', ...summary, SIGNAL_LEGEND].join('\n');
}

/** The stable `ranks --json` shape: scripts rely on it, so a change is a documented one. */
export function ranksJson(set: RankSet) {
	return {
		ranks: set.ranks.map(r => ({
			rank: r.rank,
			local_rank: r.localRank,
			world_size: r.worldSize,
			pid: r.pid,
			ppid: r.ppid,
			start_time: new Date(r.startedAt).toISOString(),
			start_ticks: r.startTime,
			host: r.host,
			cmd: r.cmd,
			state: r.state,
			stalled: r.stalled,
			cpu_percent: r.cpuPercent === null ? null : Math.round(r.cpuPercent * 10) / 10,
			rss_bytes: r.rssBytes,
			gpu_memory_bytes: r.gpuMemoryBytes,
			signals: Object.fromEntries(
				Object.entries(r.signals).map(([name, s]) => [
					name,
					{
						disposition: s.disposition,
						blocked: s.blocked,
						pending: s.pending,
						terminates_by_default: s.terminatesByDefault,
					},
				]),
			),
			workers: r.workers,
			slurm: r.slurm && {
				job_id: r.slurm.jobId,
				step_id: r.slurm.stepId,
				restart_count: r.slurm.restartCount,
				procid: r.slurm.procId,
			},
		})),
		launcher: set.launcher && {pid: set.launcher.pid, cmd: set.launcher.cmd},
	};
}

import {
	processIdentity,
	type Alert,
	type CheckpointIndex,
	type GpuReading,
	type GpuState,
	type MetricStatus,
	type RankSet,
} from '../core/types.js';
import {gpuMetricId} from '../core/metric-id.js';
import type {LogRecord} from '../memlog/record.js';
import {formatAge} from '../format/duration.js';
import {LEVEL_WORD} from '../format/levels.js';
import {localTime} from '../format/time.js';
import {formatBytes, formatPercent, formatThreshold} from '../format/units.js';

// Pure text for the headless mode. Lines are meant for a tmux pane, `tail -f` or a SLURM .out
// file: one line each, greppable (`grep CRIT`), levels upper-case only when they need attention.

function metricPart(
	label: string,
	value: number | null,
	peak: number | null,
	status: MetricStatus | undefined,
): string {
	const level = status ? ` ${LEVEL_WORD[status.level]}` : '';
	const peakText = peak !== null && value !== null && peak > value + 0.05 ? ` (peak ${formatPercent(peak)})` : '';
	return `${label} ${formatPercent(value)}${level}${peakText}`;
}

/**
 * One status line per log record: the window's last value of each metric, its level, and its
 * peak inside the window when that was higher (a spike that came and went is still shown).
 */
export function formatStatusLine(record: LogRecord, metrics: Readonly<Record<string, MetricStatus>>): string {
	const parts = [localTime(Date.parse(record.timestamp))];
	parts.push(
		record.memory ? metricPart('ram', record.memory.percent, record.memory.peak_percent, metrics.ram) : 'ram n/a',
	);
	parts.push(
		record.swap ? metricPart('swap', record.swap.percent, record.swap.peak_percent, metrics.swap) : 'swap none',
	);
	if (record.gpus.length === 0) {
		parts.push(`gpu ${record.gpu_status}`);
	}
	for (const g of record.gpus) {
		parts.push(
			metricPart(gpuMetricId(g.index), g.memory_percent, g.peak_memory_percent ?? null, metrics[gpuMetricId(g.index)]),
		);
	}
	return parts.join('  ');
}

/** A WARN/CRIT/OK line for one level change; says which way it moved and against which line. */
export function formatAlertLine(alert: Alert, warnMargin: number): string {
	const value = formatPercent(alert.value);
	const threshold = formatThreshold(alert.threshold);
	const warnAt = formatThreshold(alert.threshold - warnMargin);
	const rising = alert.to === 'critical' || (alert.to === 'warn' && alert.from === 'ok');
	let detail: string;
	if (alert.to === 'critical') {
		detail = `${alert.metric} at ${value}: at or above the ${threshold} threshold`;
	} else if (alert.to === 'warn' && rising) {
		detail = `${alert.metric} at ${value}: within ${warnMargin} points of the ${threshold} threshold`;
	} else if (alert.to === 'warn') {
		detail = `${alert.metric} down to ${value}: back under the ${threshold} threshold`;
	} else {
		detail = `${alert.metric} down to ${value}: back under the ${warnAt} warn line`;
	}
	return `${localTime(alert.time)} ${LEVEL_WORD[alert.to].toUpperCase().padEnd(4)} ${detail} (was ${alert.from})`;
}

/** `8 × NVIDIA H100 80GB HBM3` for a homogeneous node (the usual case), each device listed otherwise. */
function describeDevices(gpus: readonly GpuReading[]): string {
	const names = gpus.map(g => g.name ?? 'unknown device');
	const count = `${gpus.length} device${gpus.length === 1 ? '' : 's'}`;
	if (names.length > 0 && names.every(name => name === names[0])) return `${count}, ${gpus.length} × ${names[0]}`;
	return `${count}: ${gpus.map((g, i) => `${g.index}: ${names[i]}`).join(', ')}`;
}

/** A line for a change of the GPU reader's state, or null when there is nothing to tell. */
export function formatGpuStateLine(state: GpuState, now: number): string | null {
	switch (state.status) {
		case 'starting':
			return null;
		case 'ok': {
			const warning = state.warning ? ` — nvidia-smi warns: ${state.warning}` : '';
			return `GPU: ${describeDevices(state.gpus)}${warning}`;
		}
		case 'absent':
			return `GPU: not monitored — ${state.reason}`;
		case 'error': {
			const retry = state.retryAt === null ? '' : `; retrying in ${formatAge((state.retryAt - now) / 1000)}`;
			return `GPU: nvidia-smi failed — ${state.message}${retry}`;
		}
	}
}

function rankName(rank: {readonly rank: number | null; readonly pid: number}): string {
	return `rank ${rank.rank ?? '?'} (pid ${rank.pid})`;
}

/**
 * Lines for what changed in the job between two rank scans: ranks found, ranks gone (a crash
 * shows up here first), ranks newly stalled or running again. Empty when nothing changed.
 */
export function describeRankChanges(previous: RankSet | null, next: RankSet): string[] {
	const before = new Map((previous?.ranks ?? []).map(r => [processIdentity(r), r]));
	const after = new Map(next.ranks.map(r => [processIdentity(r), r]));
	const lines: string[] = [];
	const appeared = [...after.entries()].filter(([id]) => !before.has(id)).map(([, r]) => r);
	if (appeared.length > 0) {
		const launcher = next.launcher ? `; launcher pid ${next.launcher.pid}` : '';
		lines.push(`ranks: ${appeared.map(rankName).join(', ')} found${launcher}`);
	}
	for (const [id, r] of before) {
		if (!after.has(id)) lines.push(`ranks: ${rankName(r)} is gone`);
	}
	for (const [id, r] of after) {
		const was = before.get(id);
		if (r.stalled && !was?.stalled)
			lines.push(`ranks: ${rankName(r)} looks stalled: state ${r.state} but no CPU time lately`);
		if (!r.stalled && was?.stalled) lines.push(`ranks: ${rankName(r)} is using CPU again`);
	}
	return lines;
}

/**
 * Lines for what changed in the run dir: a new complete checkpoint, a save seen partial, a save that
 * became overdue. Partial ones are reported once, by path, since a save in progress is normal.
 */
export function describeCheckpointChanges(previous: CheckpointIndex | null, next: CheckpointIndex): string[] {
	if (!previous) return [];
	const known = new Map(previous.checkpoints.map(c => [c.path, c]));
	const lines: string[] = [];
	for (const c of next.checkpoints) {
		const before = known.get(c.path);
		if (c.status === 'complete' && before?.status !== 'complete') {
			const step = c.step === null ? '' : ` step ${c.step},`;
			lines.push(`checkpoint: ${c.name} saved (${c.kind},${step} ${formatBytes(c.bytes)})`);
		}
	}
	if (next.lastSave?.overdue && !previous.lastSave?.overdue) {
		lines.push(
			`checkpoint: OVERDUE — last save ${formatAge(next.lastSave.ageS)} ago, over 1.5 × the usual ${formatAge(next.lastSave.medianIntervalS ?? 0)}`,
		);
	}
	return lines;
}

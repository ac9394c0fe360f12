import {table} from './table.js';
import type {CheckpointIndex} from '../core/types.js';
import {rotationKeepsUsageFlat} from '../checkpoints/retention.js';
import {PARTIAL_MARK, RETENTION_MARK} from '../format/checkpoints.js';
import {formatAge} from '../format/duration.js';
import {localTime} from '../format/time.js';
import {formatBytes} from '../format/units.js';

// Pure text and JSON for `traintop checkpoints`; the TUI's checkpoints pane shows the same marks (format/checkpoints.ts).

/** The timeline (newest first, as a person scans it) and the summary of retention, disk and saves. */
export function formatCheckpoints(index: CheckpointIndex, now: number): string {
	if (index.checkpoints.length === 0) {
		return [`no checkpoints yet in ${index.runDir}`, ...index.warnings.map(w => `warning: ${w}`)].join('\n');
	}
	const rows = [...index.checkpoints]
		.reverse()
		.map(c => [
			localTime(c.time),
			formatAge((now - c.time) / 1000),
			c.step === null ? '-' : String(c.step),
			c.epoch === null ? '-' : String(Number(c.epoch.toFixed(2))),
			formatBytes(c.bytes),
			c.kind,
			c.status === 'partial' ? PARTIAL_MARK : 'complete',
			RETENTION_MARK[c.retention],
			c.name,
		]);
	const lines = table([['TIME', 'AGE', 'STEP', 'EPOCH', 'SIZE', 'KIND', 'STATUS', 'RETENTION', 'NAME'], ...rows]);
	const summary: string[] = [''];
	summary.push(
		`${index.checkpoints.length} checkpoint${index.checkpoints.length === 1 ? '' : 's'} in ${index.runDir} (${index.layouts.join(', ')})`,
	);
	const last = index.lastSave;
	if (last) {
		const every = last.medianIntervalS === null ? '' : `; saves every ${formatAge(last.medianIntervalS)} (median)`;
		summary.push(
			`last save ${formatAge(last.ageS)} ago${every}${last.overdue ? ' — OVERDUE: over 1.5 × the usual interval' : ''}`,
		);
	} else {
		summary.push('no complete checkpoint yet');
	}
	const {retention} = index;
	if (retention.keep === null) {
		summary.push('retention: no keep-N known (use --keep N): nothing is planned for deletion');
	} else {
		const from = retention.source === 'flag' ? '--keep' : "the job's metadata";
		const prune =
			retention.toPrune.length === 0
				? 'the next save prunes nothing'
				: `the next save prunes ${retention.toPrune.map(p => p.split('/').at(-1)).join(', ')}`;
		summary.push(`retention: keep ${retention.keep} (from ${from}), ${retention.count} counted; ${prune}`);
	}
	const {disk} = index;
	if (disk.freeBytes !== null && disk.totalBytes !== null) {
		const fits =
			disk.savesUntilFull !== null
				? `; about ${disk.savesUntilFull} more save${disk.savesUntilFull === 1 ? '' : 's'} fit`
				: rotationKeepsUsageFlat(index)
					? '; rotation keeps usage flat'
					: '';
		summary.push(
			`disk: ${formatBytes(disk.freeBytes)} free of ${formatBytes(disk.totalBytes)}; checkpoints ${formatBytes(disk.avgCheckpointBytes)} on average${fits}`,
		);
	}
	for (const warning of index.warnings) summary.push(`warning: ${warning}`);
	return [...lines, ...summary].join('\n');
}

/** The stable `checkpoints --json` shape: scripts rely on it, so a change is a documented one. */
export function checkpointsJson(index: CheckpointIndex) {
	return {
		run_dir: index.runDir,
		layouts: index.layouts,
		checkpoints: index.checkpoints.map(c => ({
			path: c.path,
			name: c.name,
			layout: c.layout,
			step: c.step,
			epoch: c.epoch,
			time: new Date(c.time).toISOString(),
			bytes: c.bytes,
			status: c.status,
			kind: c.kind,
			retention: c.retention,
			loss: c.loss,
			warnings: c.warnings,
		})),
		retention: {
			keep: index.retention.keep,
			source: index.retention.source,
			count: index.retention.count,
			to_prune: index.retention.toPrune,
		},
		disk: {
			free_bytes: index.disk.freeBytes,
			total_bytes: index.disk.totalBytes,
			avg_checkpoint_bytes: index.disk.avgCheckpointBytes,
			saves_until_full: index.disk.savesUntilFull,
		},
		last_save: index.lastSave && {
			time: new Date(index.lastSave.time).toISOString(),
			age_s: Math.round(index.lastSave.ageS * 10) / 10,
			median_interval_s: index.lastSave.medianIntervalS,
			overdue: index.lastSave.overdue,
		},
		warnings: index.warnings,
	};
}

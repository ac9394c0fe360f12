import {lastSaveDuration} from '../checkpoints/save-duration.js';
import {table} from './table.js';
import type {CheckpointIndex} from '../core/types.js';
import {rotationKeepsUsageFlat} from '../checkpoints/retention.js';
import {
	declaredLines,
	groupHeading,
	groupWhere,
	nextSaveText,
	noCheckpointsText,
	overdueText,
	PARTIAL_MARK,
	RETENTION_MARK,
} from '../format/checkpoints.js';
import {formatAge} from '../format/duration.js';
import {localTime} from '../format/time.js';
import {formatBytes} from '../format/units.js';
import {printable} from '../format/printable.js';

// Pure text and JSON for `traintop checkpoints`; the TUI's checkpoints pane shows the same marks (format/checkpoints.ts).

/** Text from the run dir as printed: controls made visible, and bytes of a name that is not UTF-8 as `\xff`. */
function shown(text: string): string {
	return printable(text);
}

/** The timeline (newest first, as a person scans it) and the summary of retention, disk and saves. */
export function formatCheckpoints(index: CheckpointIndex, now: number): string {
	if (index.checkpoints.length === 0) {
		return [noCheckpointsText(index), ...index.warnings.map(w => `warning: ${w}`)].map(shown).join('\n');
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
			shown(c.name),
		]);
	const lines = table([['TIME', 'AGE', 'STEP', 'EPOCH', 'SIZE', 'KIND', 'STATUS', 'RETENTION', 'NAME'], ...rows]);
	const summary: string[] = [''];
	summary.push(
		`${index.checkpoints.length} checkpoint${index.checkpoints.length === 1 ? '' : 's'} in ${index.runDir} (${frameworks(index).join(', ')})`,
	);
	summary.push(lastSaveLine(index, now));
	summary.push(...retentionLines(index));
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
	// Names, the run dir and warnings come from the run dir: every line is made printable (a no-op where it is).
	return [...lines, ...summary].map(shown).join('\n');
}

/**
 * The frameworks whose checkpoints are listed, by their own names and where they were found (`PyTorch Lightning in
 * ckpts/`); layout ids for an index without groups.
 */
function frameworks(index: CheckpointIndex): string[] {
	const titles = index.retention.groups
		.filter(group => index.checkpoints.some(c => c.group === group.key))
		.map(groupWhere);
	return titles.length === 0 ? [...index.layouts] : [...new Set(titles)];
}

/**
 * One line per checkpoint group: its framework, the rule it deletes by and where keep-N came from, how many it
 * counts and what the next save deletes.
 */
function retentionLines(index: CheckpointIndex): string[] {
	const groups = index.retention.groups.filter(group => index.checkpoints.some(c => c.group === group.key));
	if (groups.length === 0) {
		if (index.retention.keep !== null) return [`retention: keep ${index.retention.keep}`];
		return ['retention: no keep-N known (use --keep N): nothing is planned for deletion'];
	}
	return groups.flatMap(group => {
		// Each group's rule, then what its files declare and where (so that a reader can check it).
		if (group.keep === null)
			return [`retention: ${groupHeading(group, false)}; nothing is planned for deletion`, ...declaredLines(group)];
		const prune =
			group.toPrune.length === 0
				? 'the next save prunes nothing'
				: `the next save prunes ${group.toPrune.map(p => p.split('/').at(-1)).join(', ')}`;
		return [`retention: ${groupHeading(group, false)}; ${group.count} counted; ${prune}`, ...declaredLines(group)];
	});
}

/**
 * `last save 5 min ago (manual), written in 40 s; next save ~step 900 in 1 min (every 300 steps at 3.0 steps/s)`, or
 * `…; cadence: learning (…)`, with OVERDUE when the next periodic save is late: `— OVERDUE: the save due at step 900
 * (~10:42:07) has not come; 1 m 40 s late (every 300 steps at 3.0 steps/s)`.
 */
function lastSaveLine(index: CheckpointIndex, now: number): string {
	const last = index.lastSave;
	if (!last) return 'no complete checkpoint yet';
	const newest = index.checkpoints.filter(c => c.status === 'complete' && c.time === last.time);
	const offCadence = newest.find(c => c.kind === 'manual' || c.kind === 'emergency')?.kind;
	const kind = offCadence === undefined ? '' : ` (${offCadence})`;
	const took = lastSaveDuration(index);
	const wrote = took === null ? '' : `, written in ${formatAge(took.seconds)}`;
	const next = last.overdue ? null : nextSaveText(index, now);
	const cadence = next === null ? '' : `; ${next}`;
	const overdue = last.overdue ? ` — OVERDUE: ${overdueText(index, now)}` : '';
	return `last save ${formatAge(last.ageS)} ago${kind}${wrote}${cadence}${overdue}`;
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
			framework: index.retention.groups.find(group => group.key === c.group)?.framework ?? c.layout,
			group: c.group,
			step: c.step,
			epoch: c.epoch,
			time: new Date(c.time).toISOString(),
			bytes: c.bytes,
			// Seconds from its first file's creation to its last write; null where the file system keeps no birth time.
			write_s: c.writeS,
			status: c.status,
			kind: c.kind,
			retention: c.retention,
			loss: c.loss,
			metric: c.metric,
			warnings: c.warnings,
		})),
		retention: {
			keep: index.retention.keep,
			source: index.retention.source,
			count: index.retention.count,
			to_prune: index.retention.toPrune,
			// Each checkpoint group under its framework's own rule; the fields above are the main group's.
			groups: index.retention.groups.map(group => ({
				key: group.key,
				layout: group.layout,
				framework: group.framework,
				dir: group.dir,
				rule: group.rule,
				keep: group.keep,
				source: group.source,
				from: group.from,
				count: group.count,
				to_prune: group.toPrune,
				// What the run's files declare, each setting with the file it was read from ([] / null: none).
				keep_inferred: group.keepInferred === true,
				facts: (group.facts ?? []).map(fact => ({
					key: fact.key,
					value: fact.value,
					from: fact.from,
					inferred: fact.inferred === true,
				})),
				cadence:
					group.cadence === undefined
						? null
						: {
								every_steps: group.cadence.everySteps,
								every_epochs: group.cadence.everyEpochs,
								every_seconds: group.cadence.everySeconds,
								from: group.cadence.from,
							},
			})),
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
			// The newest periodic (or unknown-kind) save: the cadence and overdue count from it. null: none yet.
			last_periodic_time:
				typeof index.lastSave.periodicTime === 'number' ? new Date(index.lastSave.periodicTime).toISOString() : null,
			overdue: index.lastSave.overdue,
		},
		// The cadence of the periodic saves and the next one expected; absent on an index built without history.
		cadence: index.cadence
			? {
					every_steps: index.cadence.everySteps,
					every_s: index.cadence.everySeconds,
					from: index.cadence.from,
					source: index.cadence.source,
					steps_per_s: index.cadence.stepsPerSecond,
					next_step: index.cadence.nextStep,
					next_time: index.cadence.nextAt === null ? null : new Date(index.cadence.nextAt).toISOString(),
					overdue_time: index.cadence.overdueAt === null ? null : new Date(index.cadence.overdueAt).toISOString(),
					learning: index.cadence.learning,
					suspended: index.cadence.suspended,
				}
			: null,
		warnings: index.warnings,
	};
}

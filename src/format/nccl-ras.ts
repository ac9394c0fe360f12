import type {NcclCommunicatorGroup, NcclRasState} from '../core/progress-types.js';
import {formatAge} from './duration.js';
import {printable} from './printable.js';

// NCCL's RAS service's view, in words beside traintop's own verdict, and as the JSON outputs write it. Everything
// NCCL wrote passes through printable(): it is another program's text (a peer's host name among it).

/** Lines of NCCL's Errors and Warnings shown at the most; the rest are counted. */
const MAX_DETAIL_LINES = 8;
/** An answer older than this is said to be so (the poller asks every 15 s while it answers). */
const STALE_AFTER_MS = 45_000;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Not RUNNING, or errors other than OK: what a reader must see first. */
const troubled = (g: NcclCommunicatorGroup): boolean => g.status !== 'RUNNING' || g.errors !== 'OK';

function groupText(g: NcclCommunicatorGroup): string {
	const size = `${plural(g.comms, 'comm')}, ${plural(g.ranksInGroup, 'rank')}`;
	const status = `${printable(g.status)}, errors ${printable(g.errors)}`;
	return troubled(g) ? `group ${g.group}: ${status} — ${size}` : `group ${g.group}: ${size}, ${status}`;
}

function detail(title: string, lines: readonly string[]): string[] {
	if (lines.length === 0) return [];
	const shown = lines.slice(0, MAX_DETAIL_LINES).map(line => `  ${printable(line)}`);
	const more = lines.length - shown.length;
	return [`NCCL ${title}:`, ...shown, ...(more > 0 ? [`  … ${plural(more, 'more line')}`] : [])];
}

/**
 * `NCCL RAS 2.28.9: 1 communicator group — group 0: 1 comm, 1 rank, RUNNING, errors OK`; with several groups, one
 * line each, the troubled first (and their trouble first in the line); then NCCL's Errors and Warnings lines, and
 * what changed since the previous answer. Absent: one line with the reason.
 */
export function ncclRasLines(state: NcclRasState, now: number): string[] {
	const ageMs = now - state.readAt;
	const age = ageMs >= STALE_AFTER_MS ? ` (read ${formatAge(ageMs / 1000)} ago)` : '';
	if (state.status === 'absent') return [`NCCL RAS: not answering — ${printable(state.reason)}${age}`];
	const head = `NCCL RAS${state.version === null ? '' : ` ${printable(state.version)}`}`;
	const groups = [...state.groups].sort((a, b) => Number(troubled(b)) - Number(troubled(a)) || a.group - b.group);
	const lines: string[] = [];
	if (groups.length === 0) lines.push(`${head}: no communicators${age}`);
	else if (groups.length === 1) lines.push(`${head}: 1 communicator group — ${groupText(groups[0]!)}${age}`);
	else {
		const bad = groups.filter(troubled).length;
		const badText = bad > 0 ? `, ${bad} not RUNNING or with errors` : '';
		lines.push(`${head}: ${plural(groups.length, 'communicator group')}${badText}${age}`);
		lines.push(...groups.map(g => `  ${groupText(g)}`));
	}
	lines.push(...detail('errors', state.errors), ...detail('warnings', state.warnings));
	if (state.changes.length > 0) lines.push('Changed since the previous answer:');
	lines.push(...state.changes.map(change => `  ${printable(change)}`));
	return lines;
}

function groupJson(g: NcclCommunicatorGroup): Record<string, unknown> {
	return {
		group: g.group,
		comms: g.comms,
		nodes_per_comm: g.nodesPerComm,
		ranks_per_node: g.ranksPerNode,
		// A range when NCCL printed one ("3-4"): its table's figures, not traintop's.
		...('ranksPerNodeMax' in g && g.ranksPerNodeMax !== g.ranksPerNode ? {ranks_per_node_max: g.ranksPerNodeMax} : {}),
		ranks_per_comm: g.ranksPerComm,
		ranks_in_group: g.ranksInGroup,
		status: g.status,
		errors: g.errors,
	};
}

/** The state as `--json` and headless outputs write it: snake_case, NCCL's words as it wrote them (JSON escapes). */
export function ncclRasJson(state: NcclRasState): Record<string, unknown> {
	const readAt = new Date(state.readAt).toISOString();
	if (state.status === 'absent') return {status: 'absent', read_at: readAt, reason: state.reason};
	return {
		status: 'ok',
		read_at: readAt,
		version: state.version,
		groups: state.groups.map(groupJson),
		errors: state.errors,
		warnings: state.warnings,
		changes: state.changes,
	};
}

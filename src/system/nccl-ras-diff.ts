import type {NcclCommunicatorGroup} from '../core/progress-types.js';
import type {NcclRasAnswer} from './nccl-ras-parse.js';

// What changed between two answers of NCCL's RAS service, one short line each, for NcclRasState.changes. Groups are
// matched by their number: NCCL numbers the table's rows afresh in each answer (largest communicators first, then
// by nodes, status and errors: client_support.cc rasClientRunComms), so a communicator whose status changes may
// move to another row; what the lines say is what NCCL's table says, row by row.

/** More lines than this in one poll are summed up: a job of many communicators changing at once. */
const MAX_LINES = 12;

const groupText = (g: NcclCommunicatorGroup): string =>
	`${g.comms} comm${g.comms === 1 ? '' : 's'}, ${g.ranksInGroup} rank${g.ranksInGroup === 1 ? '' : 's'}, ${g.status}, errors ${g.errors}`;

function groupChanges(before: NcclCommunicatorGroup, after: NcclCommunicatorGroup): string[] {
	const out: string[] = [];
	const name = `group ${after.group}`;
	if (before.status !== after.status) out.push(`${name}: ${before.status} → ${after.status}`);
	if (before.errors !== after.errors) out.push(`${name}: errors ${before.errors} → ${after.errors}`);
	if (before.comms !== after.comms) out.push(`${name}: ${before.comms} → ${after.comms} comms`);
	if (before.ranksInGroup !== after.ranksInGroup)
		out.push(`${name}: ${before.ranksInGroup} → ${after.ranksInGroup} ranks`);
	return out;
}

/**
 * NCCL's Errors and Warnings sections as blocks: a heading ("INCOMPLETE", "#0-0 (9f3c2a1b5d7e6f80) ERROR", "TIMEOUT")
 * with its first detail line, which says how many (the rest list the ranks and processes, shown with the state).
 */
function blocks(lines: readonly string[]): string[] {
	const out: string[] = [];
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i]!;
		if (/^\s/.test(line)) continue;
		const next = lines[i + 1];
		out.push(next !== undefined && /^\s/.test(next) ? `${line.trim()} — ${next.trim()}` : line.trim());
	}
	return out;
}

function newBlocks(kind: string, before: readonly string[], after: readonly string[]): string[] {
	const seen = new Set(blocks(before));
	return blocks(after)
		.filter(block => !seen.has(block))
		.map(block => `new ${kind}: ${block}`);
}

/** The changes from `before` to `after`; empty when they read alike. */
export function ncclRasChanges(before: NcclRasAnswer, after: NcclRasAnswer): string[] {
	const out: string[] = [];
	if (before.version !== after.version) out.push(`NCCL version ${before.version ?? '?'} → ${after.version ?? '?'}`);
	const old = new Map(before.groups.map(g => [g.group, g]));
	for (const g of after.groups) {
		const was = old.get(g.group);
		if (was === undefined) out.push(`group ${g.group} appeared: ${groupText(g)}`);
		else out.push(...groupChanges(was, g));
		old.delete(g.group);
	}
	for (const g of old.values()) out.push(`group ${g.group} gone (was ${groupText(g)})`);
	out.push(
		...newBlocks('error', before.errors, after.errors),
		...newBlocks('warning', before.warnings, after.warnings),
	);
	if (out.length <= MAX_LINES) return out;
	return [...out.slice(0, MAX_LINES - 1), `… and ${out.length - MAX_LINES + 1} more changes`];
}

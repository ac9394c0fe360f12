import type {NcclCommunicatorGroup} from '../core/progress-types.js';

// The text answer of NCCL's RAS service to `STATUS` / `VERBOSE STATUS`, read into figures. What it follows is
// NCCL 2.28.9's src/ras/client_support.cc (rasClientRunInit, rasClientRunComms); the format is the same from 2.24.3
// to 2.30.7 (2.24 named the status bit NOCOMM "UNKNOWN"). The answer, in order:
//   NCCL version 2.28.9 compiled with CUDA 13.0
//   CUDA runtime version …, driver version …
//   Job summary / =========== / its table
//   Communicators... (0.000s) / =============
//   the table below, or "No communicator data collected!"
//   Errors / ====== / blocks: INCOMPLETE, DEAD, "#G-C (commHash) INCOMPLETE", "#G-C (commHash) ERROR"
//   Warnings / ======== / blocks: TIMEOUT, "#G-C (commHash) MISMATCH"
// The table, one row per group of communicators alike in size, nodes, status and errors, printed with
// "%5d  %8d  %8d  %8s  %8d  %8d  %8s  %6s\n":
//   Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
//       #  in group  per comm  per node  per comm  in group
// Ranks per node is "N", or "MIN-MAX" when the group's communicators differ. Status is one of NCCL's statusStr
// (NOCOMM, INIT, RUNNING, FINALIZE, ABORT: the highest any rank is in); Errors one of its errorStr (OK, MISMATCH,
// ERROR, INCOMPLETE and their comma-joined sets, e.g. INCOMPLETE,ERROR,MISMATCH).

/** A group as the table gives it; `ranksPerNodeMax` differs from `ranksPerNode` (the least) when NCCL printed a range. */
export interface NcclRasGroup extends NcclCommunicatorGroup {
	readonly ranksPerNodeMax: number;
}

export interface NcclRasAnswer {
	/** "2.28.9" from "NCCL version 2.28.9 compiled with CUDA 13.0"; null when the line is missing. */
	readonly version: string | null;
	readonly groups: readonly NcclRasGroup[];
	/** The lines under "Errors" and "Warnings" as NCCL wrote them (indent kept), blank lines left out. */
	readonly errors: readonly string[];
	readonly warnings: readonly string[];
}

export type NcclRasParsed =
	| {readonly answer: NcclRasAnswer; readonly problem: null}
	| {readonly answer: null; readonly problem: string};

const VERSION = /^NCCL version (\S+)/;
const TABLE_HEAD = /^Group\s+Comms\s+Nodes\s+Ranks\s+Ranks\s+Ranks\s+Status\s+Errors\s*$/;
const ROW = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)(?:-(\d+))?\s+(\d+)\s+(\d+)\s+([A-Z]+)\s+([A-Z]+(?:,[A-Z]+)*)\s*$/;
const NO_COMMS = 'No communicator data collected!';

const failed = (problem: string): NcclRasParsed => ({answer: null, problem});

/** Where a section's heading ("Errors" over "======") starts, from `from`; -1 when there is none. */
function headingAt(lines: readonly string[], title: string, from: number): number {
	for (let i = from; i < lines.length - 1; i++) {
		if (lines[i] === title && /^=+$/.test(lines[i + 1]!)) return i;
	}
	return -1;
}

function rowOf(line: string): NcclRasGroup | null {
	const m = ROW.exec(line);
	if (!m) return null;
	const least = Number(m[4]);
	return {
		group: Number(m[1]),
		comms: Number(m[2]),
		nodesPerComm: Number(m[3]),
		ranksPerNode: least,
		ranksPerNodeMax: m[5] === undefined ? least : Number(m[5]),
		ranksPerComm: Number(m[6]),
		ranksInGroup: Number(m[7]),
		status: m[8]!,
		errors: m[9]!,
	};
}

/** The table's rows after its two heading lines, up to the first blank line; a problem for a row it cannot read. */
function tableRows(lines: readonly string[], head: number): NcclRasGroup[] | string {
	const groups: NcclRasGroup[] = [];
	for (let i = head + 2; i < lines.length && lines[i]!.trim() !== ''; i++) {
		const group = rowOf(lines[i]!);
		if (group === null) return `line ${i + 1} is not a row of the communicator table: ${JSON.stringify(lines[i])}`;
		groups.push(group);
	}
	return groups;
}

const sectionLines = (lines: readonly string[]): string[] =>
	lines.map(line => line.replace(/\s+$/, '')).filter(line => line !== '');

/**
 * Reads a `STATUS` or `VERBOSE STATUS` answer (the bytes after the handshake). Never throws: text that is not such
 * an answer, or one cut short before its Warnings heading (NCCL closes the connection only after that), gives a
 * problem naming what is missing.
 */
export function parseNcclRasAnswer(text: string): NcclRasParsed {
	const lines = text.replace(/\r\n/g, '\n').split('\n');
	const communicators = lines.findIndex(line => line.startsWith('Communicators...'));
	if (communicators < 0) {
		const first = lines.find(line => line.trim() !== '') ?? '';
		return failed(
			first.startsWith('ERROR')
				? `NCCL's RAS service refused the command: ${first}`
				: `not a RAS status answer (no "Communicators..." line); it starts ${JSON.stringify(first.slice(0, 80))}`,
		);
	}
	const errorsAt = headingAt(lines, 'Errors', communicators);
	if (errorsAt < 0) return failed('the answer ends before its "Errors" section (cut short?)');
	const warningsAt = headingAt(lines, 'Warnings', errorsAt + 2);
	if (warningsAt < 0) return failed('the answer ends before its "Warnings" section (cut short?)');

	const between = lines.slice(communicators + 1, errorsAt);
	const headAt = between.findIndex(line => TABLE_HEAD.test(line));
	let groups: NcclRasGroup[] = [];
	if (headAt >= 0) {
		const rows = tableRows(lines, communicators + 1 + headAt);
		if (typeof rows === 'string') return failed(rows);
		if (rows.length === 0) return failed('the communicator table has no rows');
		groups = rows;
	} else if (!between.some(line => line.trim() === NO_COMMS)) {
		return failed('no communicator table and no "No communicator data collected!" line');
	}
	const versionLine = lines.slice(0, communicators).find(line => VERSION.test(line));
	return {
		answer: {
			version: versionLine === undefined ? null : VERSION.exec(versionLine)![1]!,
			groups,
			errors: sectionLines(lines.slice(errorsAt + 2, warningsAt)),
			warnings: sectionLines(lines.slice(warningsAt + 2)),
		},
		problem: null,
	};
}

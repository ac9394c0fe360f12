import {type DeclaredFinding, findingsNote} from '../../cluster/declared-vs-seen.js';
import {LEVEL_RANK} from '../../core/level.js';
import {gpuMetricId} from '../../core/metric-id.js';
import {ramAgainstLimit} from '../../core/ram-limit.js';
import type {Level, RankSet, Snapshot} from '../../core/types.js';
import {SKEW_NOTED_MS, type LinkState, type NodeView} from '../../fleet/node-state.js';
import {nodeLabel} from '../../fleet/node-words.js';
import {formatAge} from '../../format/duration.js';
import {printable} from '../../format/printable.js';
import {worse} from '../../format/levels.js';
import {formatPercent} from '../../format/units.js';

// Pure data for the nodes pane: one row per node, from what the fleet knows of it (its link and its latest
// snapshot), and the order the rows are drawn in. The words of each cell are here; node-table.ts fits them to a width.

/** A value and its level, as the node's own Monitor judged it (ok where it judged nothing). */
export interface Cell {
	readonly text: string;
	readonly level: Level;
}

export interface NodeRow {
	/** The node's name, printable: the row's identity. */
	readonly name: string;
	/** What the row shows for it: its name, and where it is reached when that differs (`gpu1 at 10.0.0.1`). */
	readonly label: string;
	readonly state: LinkState;
	/** `connected`, `stale 7 s`, `lost 12 s`, `connecting`, `reconnecting`. */
	readonly link: string;
	/** What the link means for the node's numbers: stale or lost is a problem in itself. */
	readonly linkLevel: Level;
	/** Against the job's cgroup limit when the node has one (`ramLimit`), else the host's RAM. */
	readonly ram: Cell;
	readonly ramLimit: boolean;
	readonly swap: Cell;
	/** The fullest GPU's memory, and the mean over the node's GPUs. */
	readonly gpuMax: Cell;
	readonly gpuMean: Cell;
	/** Ranks present, over those its jobs declare for this node when they all do: `8/8`, `6/8`, `8`, `-`. */
	readonly ranks: Cell;
	/** The worst of all of it: every metric, the link, missing or stuck ranks, differences from cluster.yaml. */
	readonly level: Level;
	/** Why it is lost, how it differs from cluster.yaml, its clock's skew, stuck ranks, lines that were not
	 * messages: the row's last column. */
	readonly note: string;
}

export type NodeOrder = 'given' | 'worst';

const OK = (text: string): Cell => ({text, level: 'ok'});
const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;
const NONE = OK('-');

/** `stale 7 s` / `lost 12 s`: how long the node has been silent, the age that matters when it is. */
function linkText(view: NodeView, now: number): string {
	const silent = view.lastMessageAt === null ? '' : ` ${formatAge((now - view.lastMessageAt) / 1000)}`;
	switch (view.state) {
		case 'connecting':
			return view.reconnects > 0 ? 'reconnecting' : 'connecting';
		case 'connected':
			return 'connected';
		case 'stale':
			return `stale${silent}`;
		case 'lost':
			return `lost${silent}`;
	}
}

/** A reconnect shows the last snapshot until the new agent's first: worth a look, as stale is. */
function linkLevel(view: NodeView): Level {
	if (view.state === 'lost') return 'critical';
	if (view.state === 'stale' || (view.state === 'connecting' && view.reconnects > 0)) return 'warn';
	return 'ok';
}

function ramCell(snapshot: Snapshot): Cell {
	if (!snapshot.memory) return NONE;
	const limited = Boolean(snapshot.memory.cgroup);
	const text = `${formatPercent(ramAgainstLimit(snapshot.memory).percent)}${limited ? '*' : ''}`;
	return {text, level: snapshot.metrics.ram?.level ?? 'ok'};
}

function swapCell(snapshot: Snapshot): Cell {
	if (!snapshot.memory) return NONE;
	const {swap} = snapshot.memory;
	return swap ? {text: formatPercent(swap.percent), level: snapshot.metrics.swap?.level ?? 'ok'} : OK('none');
}

/** The fullest GPU (in the worst level any GPU has) and the mean of them all; `-` without GPU readings. */
function gpuCells(snapshot: Snapshot): {max: Cell; mean: Cell} {
	if (snapshot.gpu.status !== 'ok') return {max: NONE, mean: NONE};
	const read = snapshot.gpu.gpus.filter(gpu => gpu.memoryPercent !== null);
	if (read.length === 0) return {max: NONE, mean: NONE};
	const percents = read.map(gpu => gpu.memoryPercent!);
	const level = read.reduce<Level>(
		(worst, gpu) => worse(worst, snapshot.metrics[gpuMetricId(gpu.index)]?.level ?? 'ok'),
		'ok',
	);
	const mean = percents.reduce((a, b) => a + b, 0) / percents.length;
	return {max: {text: formatPercent(Math.max(...percents)), level}, mean: OK(formatPercent(mean))};
}

/** Present over expected when every job says how many ranks it runs here; missing ones are a warning. */
function ranksCell(set: RankSet | null): Cell {
	if (set === null) return NONE;
	const up = set.jobs.reduce((sum, job) => sum + job.ranks.length, 0);
	const missing = set.jobs.some(job => !job.allLocalRanksPresent);
	const declared = set.jobs.every(job => job.localWorldSize !== null);
	const expected = set.jobs.reduce((sum, job) => sum + (job.localWorldSize ?? 0), 0);
	const text = declared && set.jobs.length > 0 ? `${up}/${expected}` : String(up);
	return {text, level: missing ? 'warn' : 'ok'};
}

/** `clock +5 s` / `clock -2 min`: the node's own time, which its numbers are in, is off ours. */
function skewText(view: NodeView): string | null {
	if (view.skewMs === null || Math.abs(view.skewMs) < SKEW_NOTED_MS) return null;
	return `clock ${view.skewMs > 0 ? '+' : '-'}${formatAge(Math.abs(view.skewMs) / 1000)}`;
}

function stuckParts(set: RankSet | null): string[] {
	const ranks = set?.ranks ?? [];
	const stopped = ranks.filter(rank => rank.stopped).length;
	const stalled = ranks.filter(rank => rank.stalled && !rank.stopped).length;
	return [...(stalled > 0 ? [`${stalled} stalled`] : []), ...(stopped > 0 ? [`${stopped} stopped`] : [])];
}

function noteText(view: NodeView, findings: readonly DeclaredFinding[]): string {
	const snapshot = view.snapshot;
	const parts: string[] = [];
	if (view.state !== 'connected' && view.problem) parts.push(view.problem);
	// Early in the note: unlike a skew or a reconnect count, it lasts until the node or cluster.yaml is fixed.
	const declared = findingsNote(findings);
	if (declared) parts.push(declared);
	const skew = skewText(view);
	if (skew) parts.push(skew);
	parts.push(...stuckParts(snapshot?.ranks ?? null));
	if (!snapshot && view.state === 'connected') parts.push('no snapshot yet');
	if (view.garbage > 0) parts.push(`${plural(view.garbage, 'line')} not messages`);
	if (view.reconnects > 0) parts.push(plural(view.reconnects, 'reconnect'));
	return parts.join(' · ');
}

/** `findings`: where the node differs from its cluster.yaml declaration (judged as its snapshots came). */
export function nodeRow(view: NodeView, now: number, findings: readonly DeclaredFinding[] = []): NodeRow {
	const snapshot = view.snapshot;
	const gpu = snapshot ? gpuCells(snapshot) : {max: NONE, mean: NONE};
	const ranks = ranksCell(snapshot?.ranks ?? null);
	const stuck: Level = stuckParts(snapshot?.ranks ?? null).length > 0 ? 'warn' : 'ok';
	const metrics = Object.values(snapshot?.metrics ?? {}).reduce<Level>((w, status) => worse(w, status.level), 'ok');
	const link = linkLevel(view);
	return {
		// The node's name (as heard from its agent), the link's error text and the note carry remote text: printable.
		name: printable(view.name),
		label: nodeLabel(view),
		state: view.state,
		link: printable(linkText(view, now)),
		linkLevel: link,
		ram: snapshot ? ramCell(snapshot) : NONE,
		ramLimit: Boolean(snapshot?.memory?.cgroup),
		swap: snapshot ? swapCell(snapshot) : NONE,
		gpuMax: gpu.max,
		gpuMean: gpu.mean,
		ranks,
		level: [link, ranks.level, stuck, ...findings.map(finding => finding.level)].reduce(worse, metrics),
		note: printable(noteText(view, findings)),
	};
}

const STATE_RANK: Readonly<Record<LinkState, number>> = {connected: 0, connecting: 1, stale: 2, lost: 3};

/** As listed (--hosts, cluster.yaml, then as heard), or the worst first: level, then the link; ties as listed. */
export function orderRows(rows: readonly NodeRow[], order: NodeOrder): readonly NodeRow[] {
	if (order === 'given') return rows;
	return [...rows].sort(
		(a, b) => LEVEL_RANK[b.level] - LEVEL_RANK[a.level] || STATE_RANK[b.state] - STATE_RANK[a.state],
	);
}

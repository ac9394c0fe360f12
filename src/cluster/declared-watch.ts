import type {JobEvent, Level, Snapshot} from '../core/types.js';
import {
	clearedText,
	compareDeclared,
	type DeclaredFinding,
	type DeclaredNode,
	findingText,
} from './declared-vs-seen.js';

// Each node's differences from its cluster.yaml declaration, judged once per snapshot as it arrives (never per
// frame: 64 nodes drawn ten times a second would compare 640 times for nothing), kept per node, and told as
// changes: a difference first seen, a difference cleared. The nodes pane and the banner read the current ones, the
// alerts pane and the headless view the changes.

/** A finding seen for the first time, or one that is no longer true. */
export interface FindingChange {
	readonly time: number;
	readonly state: 'seen' | 'cleared';
	readonly finding: DeclaredFinding;
}

/** The snapshots to judge (fleet/fleet.ts's Fleet, or a test's). */
interface SnapshotSource {
	onSnapshot(listener: (node: string, snapshot: Snapshot) => void): () => void;
}

/** Changes kept for the alerts pane, as the fleet keeps its link changes. */
const EVENTS_KEPT = 50;
const NONE: readonly DeclaredFinding[] = [];

export class DeclaredWatch {
	readonly #declared: ReadonlyMap<string, DeclaredNode>;
	readonly #now: () => number;
	readonly #findings = new Map<string, readonly DeclaredFinding[]>();
	readonly #listeners = new Set<(change: FindingChange) => void>();
	#events: readonly JobEvent[] = [];
	readonly #off: () => void;

	/** `declared`: by node name; a node without one (--hosts, a node heard of only now) has no findings. */
	constructor(source: SnapshotSource, declared: ReadonlyMap<string, DeclaredNode>, now: () => number = Date.now) {
		this.#declared = declared;
		this.#now = now;
		this.#off =
			declared.size === 0 ? () => undefined : source.onSnapshot((node, snapshot) => this.#judge(node, snapshot));
	}

	/** The node's current findings: the same array until one changes (views memoise on it). */
	of(node: string): readonly DeclaredFinding[] {
		return this.#findings.get(node) ?? NONE;
	}

	/** Findings seen and cleared, oldest first, bounded, as events naming their node for the alerts pane. */
	events(): readonly JobEvent[] {
		return this.#events;
	}

	onChange(listener: (change: FindingChange) => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	close(): void {
		this.#off();
		this.#listeners.clear();
	}

	#judge(node: string, snapshot: Snapshot): void {
		const declared = this.#declared.get(node);
		if (!declared) return;
		const before = this.of(node);
		const after = compareDeclared(declared, snapshot, before);
		const keys = (list: readonly DeclaredFinding[]) => new Set(list.map(finding => finding.key));
		const was = keys(before);
		const is = keys(after);
		const changes: FindingChange[] = [];
		const time = this.#now();
		for (const finding of before) if (!is.has(finding.key)) changes.push({time, state: 'cleared', finding});
		for (const finding of after) if (!was.has(finding.key)) changes.push({time, state: 'seen', finding});
		// The words of a finding kept may change (3 jobs, then 4): the row shows the new ones, the news was said once.
		const same = before.length === after.length && after.every((finding, i) => sameFinding(finding, before[i]));
		if (!same) this.#findings.set(node, after);
		if (changes.length === 0) return;
		this.#events = [...this.#events, ...changes.map(changeEvent)].slice(-EVENTS_KEPT);
		for (const change of changes) for (const listener of this.#listeners) listener(change);
	}
}

function sameFinding(a: DeclaredFinding, b: DeclaredFinding | undefined): boolean {
	return b !== undefined && a.key === b.key && a.what === b.what;
}

/** A change as the alerts pane lists it: a finding at its level, a cleared one ok. */
function changeEvent(change: FindingChange): JobEvent {
	const level: Level = change.state === 'seen' ? change.finding.level : 'ok';
	const text = change.state === 'seen' ? findingText(change.finding) : clearedText(change.finding);
	return {time: change.time, kind: 'node-declared', job: null, rank: null, pid: null, level, text};
}

import type {Writable} from 'node:stream';
import {clearedText, findingText} from '../cluster/declared-vs-seen.js';
import type {FindingChange} from '../cluster/declared-watch.js';
import type {RankSet, Snapshot} from '../core/types.js';
import type {AgentsSession as FleetSession} from '../session/session.js';
import type {LinkState, NodeView} from '../fleet/node-state.js';
import {linkWords, nodeLabel} from '../fleet/node-words.js';
import {LEVEL_WORD} from '../format/levels.js';
import {localTime} from '../format/time.js';
import {stdoutReader} from './stdout-reader.js';
import {
	describeRanksFound,
	eventRecord,
	formatAlertLine,
	formatEventLine,
	formatStatusLine,
	startRecord,
} from './format.js';

// The headless view of many nodes: each node's status line (or JSON record, which names its host) per log
// interval on stdout, its alerts and job events on stderr with the node's name, and a line when a node's link
// changes (connected, stale, lost). It only prints: the fleet session samples and writes one log per node.

export interface FleetHeadlessOptions {
	readonly json: boolean;
	readonly stdout: Writable;
	readonly stderr: Writable;
	readonly signal: AbortSignal;
}

const LINK_LEVEL: Record<LinkState, string> = {connecting: '', connected: '', stale: 'WARN ', lost: 'WARN '};

export async function runFleetHeadless(session: FleetSession, options: FleetHeadlessOptions): Promise<void> {
	const {fleet, settings} = session;
	const {stdout, stderr} = options;
	const note = (text: string) => stderr.write(`traintop: ${text}\n`);
	const reader = stdoutReader(stdout, options.signal);
	const out = (line: string) => {
		if (reader.open()) stdout.write(`${line}\n`);
	};

	const listed = fleet.current().nodes;
	const names = listed.map(node => node.name);
	const logs = session.logPattern ? `memory logs ${session.logPattern}` : 'memory logs off (--no-log)';
	const count = `${listed.length} node${listed.length === 1 ? '' : 's'}`;
	note(
		`watching ${listed.length > 0 ? `${count} (${listed.map(nodeLabel).join(', ')})` : "the job's nodes"} every ${settings.interval} s; ${logs}`,
	);
	// As on one node, --json starts with the stream's version; `hosts` is empty until a SLURM job's nodes are known.
	if (options.json) out(JSON.stringify(startRecord({hosts: names, time: Date.now()})));

	const offRecords = new Map<string, () => void>();
	const follow = (node: string) => {
		const recorder = session.recorders.get(node);
		if (!recorder || offRecords.has(node)) return;
		offRecords.set(
			node,
			recorder.onRecord((record, snapshot) =>
				out(options.json ? JSON.stringify(record) : `${node} ${formatStatusLine(record, snapshot.metrics)}`),
			),
		);
		recorder.trouble.subscribe(trouble => {
			if (trouble) note(`${node}: ${trouble}`);
		});
	};
	for (const node of names) follow(node);

	const lastRanks = new Map<string, RankSet>();
	const offSnapshots = fleet.onSnapshot((node: string, snapshot: Snapshot) => {
		follow(node);
		// The ranks each node's agent found, when they change (as the one-node view says them).
		if (snapshot.ranks && snapshot.ranks !== lastRanks.get(node)) {
			const found = describeRanksFound(lastRanks.get(node) ?? null, snapshot.ranks);
			if (found) note(`${localTime(snapshot.time)} ${node} ${found}`);
			lastRanks.set(node, snapshot.ranks);
		}
		for (const event of snapshot.events) {
			note(`${node} ${formatEventLine(event)}`);
			if (options.json) out(JSON.stringify({...eventRecord(event), host: node}));
		}
		for (const alert of snapshot.newAlerts) stderr.write(`${node} ${formatAlertLine(alert, settings.warnMargin)}\n`);
	});

	const states = new Map<string, LinkState>();
	const offView = fleet.subscribe(view => {
		for (const node of view.nodes) {
			if (states.get(node.name) === node.state) continue;
			const first = !states.has(node.name);
			states.set(node.name, node.state);
			if (first && node.state === 'connecting') continue;
			note(`${localTime(view.time)} ${LINK_LEVEL[node.state]}node ${nodeLabel(node)} ${linkWords(node, view.time)}`);
			if (options.json) out(JSON.stringify(nodeRecord(node, view.time)));
		}
	});

	// Where a node differs from cluster.yaml: said once when first seen and once when it clears.
	const offDeclared = session.declared.onChange(change => {
		const {finding} = change;
		const text =
			change.state === 'seen' ? `${LEVEL_WORD[finding.level]} ${findingText(finding)}` : clearedText(finding);
		note(`${localTime(change.time)} ${text}`);
		if (options.json) out(JSON.stringify(declaredRecord(change)));
	});

	session.start();
	try {
		await reader.stopped;
	} finally {
		await session.close();
		offSnapshots();
		offView();
		offDeclared();
		for (const off of offRecords.values()) off();
		reader.off();
	}
}

/** `{"event":"node", …}` with --json: a node's link changed. */
function nodeRecord(node: NodeView, now: number) {
	return {
		event: 'node',
		time: new Date(now).toISOString(),
		host: node.name,
		address: node.address,
		state: node.state,
		text: linkWords(node, now),
		skew_ms: node.skewMs,
		agent_pid: node.hello?.pid ?? null,
		garbage: node.garbage,
		reconnects: node.reconnects,
	};
}

/** `{"event":"declared", …}` with --json: a node differs from its cluster.yaml declaration, or agrees again. */
function declaredRecord({time, state, finding}: FindingChange) {
	return {
		event: 'declared',
		time: new Date(time).toISOString(),
		host: finding.node,
		state,
		level: state === 'seen' ? finding.level : 'ok',
		kind: finding.kind,
		file: finding.file,
		line: finding.line,
		text: state === 'seen' ? findingText(finding) : clearedText(finding),
	};
}

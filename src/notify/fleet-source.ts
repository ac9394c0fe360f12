import {clearedText, findingText} from '../cluster/declared-vs-seen.js';
import type {LinkState} from '../fleet/node-state.js';
import {linkWords, nodeLabel} from '../fleet/node-words.js';
import {levelWords} from '../format/notice-text.js';
import {declaredRecord, nodeRecord} from '../headless/link-lines.js';
import type {AgentsSession} from '../session/types.js';
import type {Selection} from './selection.js';
import type {NoticeSignal} from './signal.js';

// Many nodes: what no node's snapshot can say. A node's agent link lost or stale (the viewer's judgement: its
// snapshots stopped coming) and connected again, and a node differing from its cluster.yaml declaration and agreeing
// again, as signals, with the objects headless --json prints for them (headless/link-lines.ts).

const LINK_LEVEL = {connected: 'ok', stale: 'warn', lost: 'critical'} as const;

/** Follows the session's links and declarations until the returned function is called. */
export function followFleet(
	session: AgentsSession,
	selection: Selection,
	emit: (signals: readonly NoticeSignal[]) => void,
): () => void {
	const states = new Map<string, LinkState>();
	const offView = session.fleet.subscribe(view => {
		const signals: NoticeSignal[] = [];
		for (const node of view.nodes) {
			const was = states.get(node.name);
			// Reconnecting is the way back from lost, not news of its own; a first connection is not news either.
			if (node.state === 'connecting' || node.state === was) continue;
			states.set(node.name, node.state);
			const level = LINK_LEVEL[node.state];
			if (level !== 'ok' && !selection.raises('node-link')) continue;
			signals.push({
				kind: level === 'ok' ? 'clear' : 'raise',
				key: `${node.name} node-link`,
				level,
				time: view.time,
				host: node.name,
				job: null,
				record: nodeRecord(node, view.time),
				words: levelWords(level, `node ${nodeLabel(node)} ${linkWords(node, view.time)}`),
			});
		}
		if (signals.length > 0) emit(signals);
	});
	const offDeclared = session.declared.onChange(change => {
		const {finding} = change;
		const seen = change.state === 'seen';
		if (seen && (finding.level === 'ok' || !selection.raises('node-declared'))) return;
		emit([
			{
				kind: seen ? 'raise' : 'clear',
				key: `${finding.node} node-declared ${finding.key}`,
				level: seen ? finding.level : 'ok',
				time: change.time,
				host: finding.node,
				job: null,
				record: declaredRecord(change),
				words: seen ? levelWords(finding.level, findingText(finding)) : levelWords('ok', clearedText(finding)),
			},
		]);
	});
	return () => {
		offView();
		offDeclared();
	};
}

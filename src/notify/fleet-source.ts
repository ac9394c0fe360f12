import {clearedText, findingText} from '../cluster/declared-vs-seen.js';
import {linkWords, nodeLabel} from '../fleet/node-words.js';
import {levelWords} from '../format/notice-text.js';
import {declaredRecord, nodeRecord} from '../headless/link-lines.js';
import type {AgentsSession} from '../session/types.js';
import type {Selection} from './selection.js';
import type {NoticeSignal} from './signal.js';

// Many nodes: what no node's snapshot can say. A node's agent link lost or stale (the viewer's judgement: its
// snapshots stopped coming) and connected again, as the fleet's own link events tell it, and a node differing from its
// cluster.yaml declaration and agreeing again, as signals, with the objects headless --json prints for them (headless/link-lines.ts).

/** Follows the session's links and declarations until the returned function is called. */
export function followFleet(
	session: AgentsSession,
	selection: Selection,
	emit: (signals: readonly NoticeSignal[]) => void,
): () => void {
	// The fleet judges link changes once (fleet/link-events.ts), into a bounded list it renews on each change: the
	// events not in the list seen before are the new ones.
	let told = new Set(session.fleet.current().events ?? []);
	const offView = session.fleet.subscribe(view => {
		const events = view.events ?? [];
		const news = events.filter(event => !told.has(event));
		told = new Set(events);
		const signals: NoticeSignal[] = [];
		for (const event of news) {
			const node = view.nodes.find(one => one.name === event.node);
			if (event.kind !== 'node-link' || node === undefined) continue;
			if (event.level !== 'ok' && !selection.raises('node-link')) continue;
			signals.push({
				kind: event.level === 'ok' ? 'clear' : 'raise',
				key: `${node.name} node-link`,
				level: event.level,
				time: event.time,
				host: node.name,
				job: null,
				record: nodeRecord(node, event.time),
				words: levelWords(event.level, `node ${nodeLabel(node)} ${linkWords(node, event.time)}`),
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

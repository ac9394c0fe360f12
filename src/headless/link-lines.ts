import {clearedText, findingText} from '../cluster/declared-vs-seen.js';
import type {FindingChange} from '../cluster/declared-watch.js';
import type {LinkState, NodeView} from '../fleet/node-state.js';
import {linkWords, nodeLabel} from '../fleet/node-words.js';
import {LEVEL_WORD} from '../format/levels.js';
import {localTime} from '../format/time.js';
import type {AgentsSession} from '../session/session.js';
import type {Print} from './print.js';

// The agents' links in the headless view: a line when a node's link changes (connected, stale, lost), and where a
// node differs from its cluster.yaml declaration (once when first seen, once when it clears); with --json an
// object each. This machine's own node has no link.

const LINK_LEVEL: Record<LinkState, string> = {connecting: '', connected: '', stale: 'WARN ', lost: 'WARN '};

/** Prints the links' changes and the declared differences until the returned function is called. */
export function printLinks(session: AgentsSession, print: Print): () => void {
	const states = new Map<string, LinkState>();
	const offView = session.fleet.subscribe(view => {
		for (const node of view.nodes) {
			if (states.get(node.name) === node.state) continue;
			const first = !states.has(node.name);
			states.set(node.name, node.state);
			if (first && node.state === 'connecting') continue;
			print.note(
				`${localTime(view.time)} ${LINK_LEVEL[node.state]}node ${nodeLabel(node)} ${linkWords(node, view.time)}`,
			);
			print.record(nodeRecord(node, view.time));
		}
	});
	const offDeclared = session.declared.onChange(change => {
		const {finding} = change;
		const text =
			change.state === 'seen' ? `${LEVEL_WORD[finding.level]} ${findingText(finding)}` : clearedText(finding);
		print.note(`${localTime(change.time)} ${text}`);
		print.record(declaredRecord(change));
	});
	return () => {
		offView();
		offDeclared();
	};
}
/** `{"event":"node", …}` with --json: a node's link changed. */
export function nodeRecord(node: NodeView, now: number) {
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
export function declaredRecord({time, state, finding}: FindingChange) {
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

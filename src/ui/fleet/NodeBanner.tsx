import {Box, Text} from 'ink';
import {type DeclaredFinding, findingsNote} from '../../cluster/declared-vs-seen.js';
import type {NodeView} from '../../fleet/node-state.js';
import {linkWords, nodeLabel} from '../../fleet/node-words.js';
import {formatAge} from '../../format/duration.js';
import {usePaint} from '../color.js';

export interface Props {
	/** The node as the fleet sees it now; null when it is no longer listed. */
	readonly node: NodeView | null;
	readonly name: string;
	/** Epoch ms of the fleet's view. */
	readonly now: number;
	readonly width: number;
	/** --readonly: said instead of where s and e send. */
	readonly readonly: boolean;
	/** Where the node differs from its cluster.yaml declaration; the nodes' alerts pane has them in full. */
	readonly findings?: readonly DeclaredFinding[];
}

/** `NODE node2 · its last snapshot, 12 s old`: what a stale or lost node's view shows is not live. */
function oldText(node: NodeView, now: number): string {
	if (node.state !== 'stale' && node.state !== 'lost') return '';
	if (node.snapshot === null || node.lastMessageAt === null) return ' · nothing received from it';
	return ` · below: its last snapshot, ${formatAge((now - node.lastMessageAt) / 1000)} old`;
}

/**
 * The line above a node's own view: which node, its agent's link in words (connected, stale, lost and why), where it
 * differs from cluster.yaml, and where s and e send (this node's ranks, through its agent). Red and inverse when
 * lost, yellow when stale: the numbers below are old.
 */
export default function NodeBanner({node, name, now, width, readonly, findings = []}: Props) {
	const paint = usePaint();
	const state = node?.state ?? 'lost';
	const link = node ? linkWords(node, now) : 'no longer listed';
	const color = state === 'lost' ? 'red' : state === 'stale' ? 'yellow' : undefined;
	return (
		<Box width={width}>
			<Text wrap="truncate-end">
				<Text bold inverse={state === 'lost'} color={color === undefined ? undefined : paint(color)}>
					{`NODE ${node ? nodeLabel(node) : name} · ${link}${node ? oldText(node, now) : ''}`}
				</Text>
				{findings.length > 0 ? (
					<Text color={paint('yellow')}>{` · ${findingsNote(findings)} (in full: Esc, ALERTS)`}</Text>
				) : null}
				{readonly ? ' · --readonly: no signal' : " · s/e: this node's ranks, through its agent · Esc: all nodes"}
			</Text>
		</Box>
	);
}

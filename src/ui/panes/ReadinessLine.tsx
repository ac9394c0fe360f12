import {Text} from 'ink';
import type {Readiness, ReadinessVerdict} from '../../core/readiness-types.js';
import {orderedReasons, reasonText, workAtRiskS} from '../../format/readiness.js';
import {usePaint} from '../color.js';

// A job's preemption readiness on one line of the ranks pane: the verdict in its colour, then its reasons, problems
// first (the line is cut at the pane's width, so what decides the verdict is what stays).

const COLOR: Readonly<Record<ReadinessVerdict, string>> = {
	ready: 'green',
	'at-risk': 'yellow',
	'not-ready': 'red',
	unknown: 'gray',
};

export default function ReadinessLine({readiness, now}: {readonly readiness: Readiness; readonly now: number}) {
	const paint = usePaint();
	const work = workAtRiskS(readiness, now);
	const reasons = orderedReasons(readiness)
		.map(reason => reasonText(reason, work))
		.join('; ');
	return (
		<>
			{'   if preempted: '}
			<Text bold color={paint(COLOR[readiness.verdict])}>
				{readiness.verdict.toUpperCase()}
			</Text>
			{` — ${reasons}`}
		</>
	);
}

import {Text} from 'ink';
import type {JobProgress, ProgressVerdict} from '../../core/progress-types.js';
import {progressText, verdictWords} from '../../format/progress.js';
import {usePaint} from '../color.js';

// A stalled or hung job's progress on one line of the ranks pane: the verdict in its colour, then the odd rank out
// and the ranks waiting for it (the line is cut at the pane's width, so who stands out is what stays).

const COLOR: Readonly<Record<ProgressVerdict, string>> = {
	progressing: 'green',
	stalled: 'yellow',
	hung: 'red',
	unknown: 'gray',
};

export default function ProgressLine({progress, now}: {readonly progress: JobProgress; readonly now: number}) {
	const paint = usePaint();
	const head = verdictWords(progress);
	return (
		<>
			{'   progress: '}
			<Text bold color={paint(COLOR[progress.verdict])}>
				{head}
			</Text>
			{progressText(progress, now).slice(head.length)}
		</>
	);
}

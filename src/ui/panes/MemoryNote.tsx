import {Text} from 'ink';
import type {GpuMemoryUnseen, HostConsumers} from '../../core/memory-types.js';
import {usePaint} from '../color.js';
import Line from '../widgets/Line.js';
import {consumerNoteLines, fitLines, noteRows, unseenNoteLines} from './memory-notes.js';

export interface Props {
	readonly unseen?: GpuMemoryUnseen | null;
	readonly consumers?: HostConsumers | null;
	/** Which note: the host's top consumers (below the host lines) or GPU memory nobody can see (below the GPUs). */
	readonly note: 'consumers' | 'unseen';
	readonly width: number;
	/** Lines the pane has left under its gauges, shared by both notes (ui/panes/memory-notes.ts). */
	readonly spare: number;
}

/**
 * A note of the memory pane: `not the job: 30.1 GiB nobody python3 hog.py` while the host is short of RAM, or
 * `1.2 GiB on GPU0 held by processes not visible here (PID namespace)`. Nothing when there is none or no room.
 */
function MemoryNote({unseen, consumers, note, width, spare}: Props) {
	const paint = usePaint();
	const source = {gpuUnseen: unseen, hostConsumers: consumers};
	const rows = noteRows(spare, source);
	const lines =
		note === 'consumers'
			? fitLines(consumerNoteLines(source), rows.consumers)
			: fitLines(unseenNoteLines(source), rows.unseen);
	return lines.map(line => (
		<Line key={line} width={width}>
			<Text color={paint('yellow')}>{line}</Text>
		</Line>
	));
}

export default MemoryNote;

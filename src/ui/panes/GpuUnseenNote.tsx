import {Text} from 'ink';
import type {GpuMemoryUnseen} from '../../core/memory-types.js';
import {usePaint} from '../color.js';
import Line from '../widgets/Line.js';
import {fitLines, NOTE_LINES_MAX, unseenNoteLines} from './memory-notes.js';

export interface Props {
	readonly unseen: GpuMemoryUnseen | null | undefined;
	readonly width: number;
	/** Lines the pane has left under its GPU gauges. */
	readonly rows: number;
}

/**
 * GPU memory nobody can see, under the GPU gauges: `1.2 GiB on GPU0 held by processes not visible here (PID
 * namespace)`, `pid 5521 (gone) still holds 8.0 GiB on GPU3`. Nothing when there is none or no room.
 */
function GpuUnseenNote({unseen, width, rows}: Props) {
	const paint = usePaint();
	const lines = fitLines(unseenNoteLines({gpuUnseen: unseen}), Math.min(rows, NOTE_LINES_MAX));
	return lines.map(line => (
		<Line key={line} width={width}>
			<Text color={paint('yellow')}>{line}</Text>
		</Line>
	));
}

export default GpuUnseenNote;

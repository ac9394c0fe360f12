import type {GpuMemoryUnseen, HostConsumers} from '../../core/memory-types.js';
import {gpuUnseenLines} from '../../format/gpu-unseen.js';
import {hostConsumerLines} from '../../format/host-consumers.js';
import type {Need} from './pane.js';

// The memory pane's notes under its gauges: the host's top consumers that are not the job (while the host is short
// of RAM) below the host lines, GPU memory nobody can see below the GPU gauges. They ask for rows of their own (a few
// at most: the memory pane takes its rows before the others) and get only what the gauges leave, the consumers first.

/** At most this many lines of each note: the rest is counted on the last one. */
const NOTE_LINES_MAX = 3;

export interface NoteSource {
	readonly gpuUnseen?: GpuMemoryUnseen | null;
	readonly hostConsumers?: HostConsumers | null;
}

/** The lines of a note, shortened to `rows`: the last one says how many more there are. */
export function fitLines(lines: readonly string[], rows: number): string[] {
	if (rows <= 0) return [];
	if (lines.length <= rows) return [...lines];
	return [...lines.slice(0, rows - 1), `… ${lines.length - rows + 1} more`];
}

export function unseenNoteLines(source: NoteSource): string[] {
	return gpuUnseenLines(source.gpuUnseen);
}

export function consumerNoteLines(source: NoteSource): string[] {
	return hostConsumerLines(source.hostConsumers);
}

/** Rows each note may take of the `spare` rows the gauges left: the consumers first (the host is short). */
export function noteRows(spare: number, source: NoteSource): {consumers: number; unseen: number} {
	const consumers = Math.max(0, Math.min(spare, NOTE_LINES_MAX, consumerNoteLines(source).length));
	return {consumers, unseen: Math.max(0, Math.min(spare - consumers, NOTE_LINES_MAX))};
}

/** The pane's need with its notes' rows added to what it would like. */
export function withNoteRows(need: Need, source: NoteSource): Need {
	const rows = Math.min(NOTE_LINES_MAX, unseenNoteLines(source).length) + noteRows(NOTE_LINES_MAX, source).consumers;
	return {min: need.min, want: need.want + rows};
}

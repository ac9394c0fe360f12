import type {GpuMemoryUnseen} from '../../core/memory-types.js';
import {gpuUnseenLines} from '../../format/gpu-unseen.js';
import type {Need} from './pane.js';

// The memory pane's notes under its gauges: GPU memory nobody can see, below the GPU gauges. They ask for rows of
// their own (a few at most: the memory pane takes its rows before the others) and get only what the gauges leave.

/** At most this many lines of each note: the rest is counted on the last one. */
export const NOTE_LINES_MAX = 3;

export interface NoteSource {
	readonly gpuUnseen?: GpuMemoryUnseen | null;
}

/** The lines of the note, shortened to `rows`: the last one says how many more there are. */
export function fitLines(lines: readonly string[], rows: number): string[] {
	if (rows <= 0) return [];
	if (lines.length <= rows) return [...lines];
	return [...lines.slice(0, rows - 1), `… ${lines.length - rows + 1} more`];
}

export function unseenNoteLines(source: NoteSource): string[] {
	return gpuUnseenLines(source.gpuUnseen);
}

/** The pane's need with its notes' rows added to what it would like. */
export function withNoteRows(need: Need, source: NoteSource): Need {
	return {min: need.min, want: need.want + Math.min(NOTE_LINES_MAX, unseenNoteLines(source).length)};
}

import type React from 'react';
import type {ScreenData} from '../screen-data.js';

// What a pane declares about itself, so that the layout can be computed for any set of panes: the
// rows it needs and would like for the data at hand, how wide it must be for its fuller form, and
// how it is drawn from the screen's data. Adding a pane is its own files plus a line in registry.ts.

/** Rows a pane needs at the least, and would like to have. */
export interface Need {
	readonly min: number;
	readonly want: number;
}

/** The room a pane's need is measured against. */
export interface PaneRoom {
	/** Columns the pane will have. */
	readonly width: number;
	/** Rows all the panes share (the screen less the key bar and the one spare line). */
	readonly budget: number;
}

/** The box the layout gives a pane. */
export interface PaneBox extends PaneRoom {
	/** Lines the pane may use; it may use fewer. */
	readonly height: number;
	/** Narrow: the pane drops its optional columns. */
	readonly compact: boolean;
}

/** A pane of a screen whose data is `D` (the one-node screen's ScreenData; the many-node screen has its own). */
export interface PaneDefinition<D = ScreenData> {
	readonly id: string;
	/** From this width the pane shows its fuller form (`compact` is false). */
	readonly wideFrom: number;
	/**
	 * Rows it gets, beyond its minimum, before the panes after it get theirs; what is left is then
	 * shared out one row at a time. Infinity: all it wants, first (the memory gauges are the point).
	 */
	readonly firstRows: number;
	/** Takes its rows last in each round of the sharing: the spare rows, once the others have theirs (the history). */
	readonly spare?: boolean;
	need(data: D, room: PaneRoom): Need;
	render(data: D, box: PaneBox): React.ReactNode;
}

/** Columns between side-by-side panes or packed gauges. */
export const GAP = 2;

/** A horizontal band of the screen: one pane, or several side by side once the terminal is wide enough. */
export interface Band<D = ScreenData> {
	readonly panes: readonly PaneDefinition<D>[];
	/** Columns from which the panes stand side by side; below, they are stacked. */
	readonly sideBySideFrom?: number;
	/** Side by side, each pane's share of the width but the last's (which takes the rest). */
	readonly shares?: readonly number[];
}

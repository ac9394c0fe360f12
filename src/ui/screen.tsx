import React from 'react';
import {Box} from 'ink';
import type {ScreenLayout} from './layout.js';
import {GAP} from './panes/pane.js';
import type {ScreenData} from './screen-data.js';
import KeyBar from './widgets/KeyBar.js';
import type {KeyHint} from './widgets/key-bar.js';

export interface Props<D = ScreenData> {
	readonly layout: ScreenLayout<D>;
	readonly data: D;
	/** A box floating over the panes (confirm, help…), absolutely placed by itself; or null. */
	readonly overlay?: React.ReactNode;
	readonly hints: readonly KeyHint[];
}

/**
 * The whole screen as the layout says: the bands of panes, then the key bar, and a box over them. Pure. `D`: the
 * data the panes draw (the one-node screen's, or the many-node screen's).
 */
export default function Screen<D = ScreenData>({layout, data, overlay = null, hints}: Props<D>) {
	const bands = layout.bands.map((band, i) => {
		const panes = band.panes.map(({pane, box}) => (
			<React.Fragment key={pane.id}>{pane.render(data, box)}</React.Fragment>
		));
		return band.sideBySide ? (
			<Box key={i} columnGap={GAP}>
				{panes}
			</Box>
		) : (
			<React.Fragment key={i}>{panes}</React.Fragment>
		);
	});
	// With a box, the screen is its full rows − 1 lines and the key bar the last of them: the box is placed
	// in the rows − 2 lines above it (overlay-box.ts), which short panes alone would not reach. The box
	// comes last so that Ink paints it over the panes.
	return (
		<Box flexDirection="column" width={layout.columns} height={overlay ? layout.rows - 1 : undefined}>
			{bands}
			{overlay ? <Box flexGrow={1} /> : null}
			<KeyBar hints={hints} width={layout.keyBar.width} />
			{overlay}
		</Box>
	);
}

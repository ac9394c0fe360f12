import React from 'react';
import {Box} from 'ink';
import type {ScreenLayout} from './layout.js';
import {GAP} from './panes/pane.js';
import type {ScreenData} from './screen-data.js';
import KeyBar from './widgets/KeyBar.js';
import type {KeyHint} from './widgets/key-bar.js';

export interface Props {
	readonly layout: ScreenLayout;
	readonly data: ScreenData;
	/** A box that takes the panes' place (confirm, help…), or null for the panes. */
	readonly overlay?: React.ReactNode;
	readonly hints: readonly KeyHint[];
}

/** The whole screen as the layout says: the bands of panes (or an overlay), then the key bar. Pure. */
export default function Screen({layout, data, overlay = null, hints}: Props) {
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
	return (
		<Box flexDirection="column" width={layout.columns}>
			{overlay ?? bands}
			<KeyBar hints={hints} width={layout.keyBar.width} />
		</Box>
	);
}

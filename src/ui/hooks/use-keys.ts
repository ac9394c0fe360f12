import {type MutableRefObject, useCallback, useLayoutEffect, useRef} from 'react';
import {useInput} from 'ink';
import {keyPresses} from '../key-presses.js';
import type {KeyContext, NodesKeyContext, UiEvent} from '../ui-events.js';

// The app's one key handler. The view on screen (a node's, or the list of nodes) says what a key needs to know of
// it (its context) by registering a function here at each commit; the handler, mounted with the app and never
// replaced, asks whichever view is there now. A handler per view lost keys at a switch: Ink subscribes a view's
// handler in a passive effect, after its first frame is on screen, so a key typed right after Esc went back to the
// nodes reached the node view's handler (still subscribed, its context stale) and was dropped, and ↓ did nothing.

export type KeyContextOf = () => KeyContext | NodesKeyContext;

export type KeyContextSlot = MutableRefObject<KeyContextOf | null>;

/** The slot the views fill, and the one handler that sends each key press to the reducer with its context. */
export function useKeys(dispatch: (event: UiEvent) => void): KeyContextSlot {
	const slot = useRef<KeyContextOf | null>(null);
	const handler = useCallback<Parameters<typeof useInput>[0]>(
		(input, key) => {
			const contextOf = slot.current;
			if (contextOf === null) return;
			const context = contextOf();
			for (const one of keyPresses(input, key)) dispatch({type: 'input', input: one, key, context});
		},
		[dispatch],
	);
	useInput(handler);
	return slot;
}

/** Registers the view's key context at each commit, before any key can reach it. */
export function useKeyContext(slot: KeyContextSlot, contextOf: KeyContextOf): void {
	useLayoutEffect(() => {
		slot.current = contextOf;
	});
}

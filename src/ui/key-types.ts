// The shapes of the keymap (keymap.ts): what a key asks for, where the user is, one binding of a key. Apart from the
// table so that the table's file stays the table.

/** What a key asks for; the app's reducer (state.ts) and its effects do it. */
export type Action =
	| 'quit'
	| 'up'
	| 'down'
	| 'page-up'
	| 'page-down'
	| 'mark'
	| 'save'
	| 'emergency'
	/** The save signal, timed: its checkpoint's write time against the lead, and the readiness verdict (one node). */
	| 'drill'
	| 'analyze'
	| 'help'
	| 'close'
	| 'detail'
	/** In a rank's detail: where the rank and its workers are (each thread's wait; Python frames with py-spy). */
	| 'where'
	| 'sort'
	| 'window'
	/** Scroll the alerts pane one entry towards the older ones, or back towards the newest. */
	| 'alerts-older'
	| 'alerts-newer'
	| 'choose-next'
	| 'confirm'
	| 'activate'
	| 'suspend'
	/** The many-node screen (traintop --hosts): open the node under the cursor, order the nodes, come back. */
	| 'open-node'
	| 'order-nodes'
	| 'back';

/** Where the user is: each has its own keys. */
export type Mode = 'main' | 'confirm' | 'result' | 'help' | 'analysis' | 'detail';

/** A mode of the one-node screen, or the many-node screen's list of nodes (traintop --hosts). */
export type KeyMode = Mode | 'nodes';

/** The parts of Ink's `useInput` key that traintop reads. */
export interface KeyInfo {
	readonly upArrow?: boolean;
	readonly downArrow?: boolean;
	readonly leftArrow?: boolean;
	readonly rightArrow?: boolean;
	readonly pageUp?: boolean;
	readonly pageDown?: boolean;
	readonly return?: boolean;
	readonly escape?: boolean;
	readonly tab?: boolean;
	readonly ctrl?: boolean;
}

export interface Binding {
	readonly action: Action;
	readonly modes: readonly KeyMode[];
	/** As shown in help and the key bar. */
	readonly keys: string;
	readonly description: string;
	/**
	 * Its label on the key bar, in every mode it has, or per mode where the same key reads differently
	 * (Esc cancels a confirm box but closes the others); absent = not on the bar. The bar lists a
	 * mode's labelled bindings in table order, most important first: it drops from the end when narrow.
	 */
	readonly bar?: string | Readonly<Partial<Record<KeyMode, string>>>;
	/** The key as the bar shows it, when not the first of `keys`. */
	readonly barKey?: string;
	/** A signal action: hidden and disabled by --readonly. */
	readonly acts?: boolean;
	/** Only under the many-node screen (traintop --hosts): absent from the one-node screen, its help and bar. */
	readonly fleet?: boolean;
	readonly matches: (input: string, key: KeyInfo) => boolean;
}

import {truncate} from '../format/columns.js';
import {barHints, type KeyMode} from './keymap.js';
import type {KeyHint} from './widgets/key-bar.js';

// The key bar's line: the mode's keys from the keymap, behind what must not go unseen.

export interface BarStatus {
	readonly mode: KeyMode;
	readonly readonly: boolean;
	/** A key that had nothing to act on, said for a few seconds on the main screen. */
	readonly notice: string | null;
	/** Why the memory log cannot be written: it takes the front of the bar until it recovers. */
	readonly logTrouble: string | null;
	readonly columns: number;
	/** Under the many-node screen (traintop --hosts): its keys too (Esc back to the nodes). */
	readonly fleet?: boolean;
}

export function keyBarHints({mode, readonly, notice, logTrouble, columns, fleet = false}: BarStatus): KeyHint[] {
	let hints: KeyHint[] = barHints(mode, readonly, fleet);
	if (readonly && mode === 'main') hints = [{key: 'READ-ONLY', label: ''}, ...hints];
	if (notice && mode === 'main') hints = [{key: '!', label: truncate(notice, Math.max(10, columns - 4))}, ...hints];
	if (logTrouble) hints = [{key: 'LOG', label: truncate(logTrouble, Math.max(10, columns - 6))}, ...hints];
	return hints;
}

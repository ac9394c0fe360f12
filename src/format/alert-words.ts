import type {Alert} from '../core/types.js';
import {formatPercent, formatThreshold} from './units.js';

// A metric's level change in words, without its time or level word: the headless alert line, the `level` object of
// --json and a notice all say the same thing.

/** `ram at 91.0%: at or above the 85% threshold`: which way it moved and against which line. */
export function alertWords(alert: Alert, warnMargin: number): string {
	const value = formatPercent(alert.value);
	const threshold = formatThreshold(alert.threshold);
	const warnAt = formatThreshold(alert.threshold - warnMargin);
	const rising = alert.to === 'critical' || (alert.to === 'warn' && alert.from === 'ok');
	if (alert.to === 'critical') return `${alert.metric} at ${value}: at or above the ${threshold} threshold`;
	if (alert.to === 'warn' && rising)
		return `${alert.metric} at ${value}: within ${warnMargin} points of the ${threshold} threshold`;
	if (alert.to === 'warn') return `${alert.metric} down to ${value}: back under the ${threshold} threshold`;
	return `${alert.metric} down to ${value}: back under the ${warnAt} warn line`;
}

import type {Alert} from '../../core/types.js';
import {isRising, LEVEL_TAG, LEVEL_WORD} from '../../format/levels.js';
import {localTimeShort} from '../../format/time.js';
import {formatPercent, formatThreshold} from '../../format/units.js';

// Pure text for AlertsPane. Shorter than the headless alert line (formatAlertLine), which spells
// out the warn margin the pane does not know and takes ~90 columns.

/**
 * `10:00:30 ▲ CRIT gpu0 91.2%  was WARN · threshold 90%`; ▲/▼ and the words read without colour.
 * The time is of day for today (as `now` sees it), the full local date and time for older changes.
 */
export function alertText(
	alert: Alert,
	now: number,
	compact: boolean,
): {readonly time: string; readonly arrow: string; readonly tag: string; readonly detail: string} {
	const was = `was ${LEVEL_WORD[alert.from]}`;
	return {
		time: localTimeShort(alert.time, now),
		arrow: isRising(alert.from, alert.to) ? '▲' : '▼',
		tag: LEVEL_TAG[alert.to],
		detail: `${alert.metric} ${formatPercent(alert.value)}  ${was}${compact ? '' : ` · threshold ${formatThreshold(alert.threshold)}`}`,
	};
}

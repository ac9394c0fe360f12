import type {Alert} from '../core/types.js';
import {alertWords} from '../format/alert-words.js';
import {LEVEL_WORD} from '../format/levels.js';

// A metric's level change in --json (`{"event":"level",…}`), beside the line on stderr: a script reading the stream
// sees RAM turn CRIT as it happens, not at the next log record. A notice about a level change carries the same object.

/** `host`: the node's name where there are many (a notice always names it); null for the one node. */
export function levelRecord(alert: Alert, warnMargin: number, host: string | null) {
	return {
		event: 'level' as const,
		time: new Date(alert.time).toISOString(),
		...(host === null ? {} : {host}),
		metric: alert.metric,
		from: alert.from,
		to: alert.to,
		value: alert.value,
		threshold: alert.threshold,
		level: alert.to,
		text: `${LEVEL_WORD[alert.to].toUpperCase()} ${alertWords(alert, warnMargin)} (was ${alert.from})`,
	};
}

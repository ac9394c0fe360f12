import type {Notice} from '../../src/notify/notice.js';

// A notice as the notifier makes one, for the sinks' tests: a CRIT RAM episode being raised on one host.

export function sampleNotice(overrides: Partial<Notice> = {}): Notice {
	const time = Date.parse('2026-11-29T01:00:00Z');
	return {
		state: 'raised',
		episode: 'gpu1 level ram',
		level: 'critical',
		time,
		since: time,
		repeats: 0,
		host: 'gpu1',
		job: null,
		record: {type: 'level', time: new Date(time).toISOString(), metric: 'ram', level: 'critical', percent: 91},
		text: 'gpu1: CRIT ram at 91.0%: at or above the 85% threshold',
		...overrides,
	};
}

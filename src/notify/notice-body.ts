import {versioned} from '../format/json-version.js';
import type {Notice} from './notice.js';

/**
 * The one JSON object every sink sends: the headless `--json` object of what happened (an event, a level change, a
 * readiness verdict) with `host` and `job`, its `text` replaced by the notice's line (complete on its own, which Slack-,
 * Mattermost- and Discord-compatible incoming webhooks show as is), and `notice`: the episode it belongs to.
 */
export function noticeBody(notice: Notice) {
	return versioned({
		...notice.record,
		host: notice.host,
		job: notice.job,
		text: notice.text,
		notice: {
			state: notice.state,
			episode: notice.episode,
			level: notice.level,
			since: new Date(notice.since).toISOString(),
			repeats: notice.repeats,
		},
	});
}

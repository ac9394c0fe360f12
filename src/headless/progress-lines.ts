import type {JobProgress} from '../core/progress-types.js';
import {progressText} from '../format/progress.js';
import {progressJson} from '../format/progress-json.js';
import type {VerdictWords} from './job-verdict-lines.js';

// Each job's progress in the headless view (`{"event":"progress",…}`): said when first judged and each time its
// verdict changes, or the processes that stand out do (another odd rank, a rank gone from sleeping), not as its
// seconds move.

export const PROGRESS_LINES: VerdictWords<JobProgress> = {
	event: 'progress',
	of: snapshot => snapshot.progress,
	keyOf: p =>
		`${p.verdict} ${p.odd.map(o => `${o.pid}:${o.activity}:${o.wchan}`).join(',')} ${p.waiting.map(w => `${w.pids.join('+')}:${w.activity}`).join(',')}`,
	text: progressText,
	json: progressJson,
};

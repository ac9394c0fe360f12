import type {Readiness} from '../core/readiness-types.js';
import {readinessText} from '../format/readiness.js';
import {readinessJson} from '../format/readiness-json.js';
import type {VerdictWords} from './job-verdict-lines.js';

// Each job's preemption readiness in the headless view (`{"event":"readiness",…}`): said when first judged and each
// time its verdict, its signal or its reasons' codes change (the scheduler's deadline read, a save seen), not as its
// figures move.

export const READINESS_LINES: VerdictWords<Readiness> = {
	event: 'readiness',
	of: snapshot => snapshot.readiness,
	keyOf: r => `${r.verdict} ${r.signal} ${r.reasons.map(reason => reason.code).join(',')}`,
	text: readinessText,
	json: readinessJson,
};

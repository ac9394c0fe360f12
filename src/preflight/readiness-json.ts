import type {ReadinessReason} from '../core/readiness-types.js';
import type {ReadinessPart} from './readiness.js';
import {handlersNote, reasonText} from './readiness-words.js';
import {reasonFigures} from '../format/readiness-json.js';

// `preflight --json`'s `readiness` object (docs/preflight.md): the verdict, each reason as its code, effect, words and
// figures (snake_case), the save times and the lead; what it was read from. Before launch the ranks' handlers are
// not known: `handlers` is null and `handlers_note` says where they are read.

function reasonJson(part: ReadinessPart, reason: ReadinessReason) {
	return {code: reason.code, effect: reason.effect, text: reasonText(part, reason), ...reasonFigures(reason)};
}

export function readinessJson(part: ReadinessPart) {
	const {readiness, launcher, directive} = part;
	const save = readiness.saveS;
	return {
		verdict: readiness.verdict,
		signal: readiness.signal,
		reasons: readiness.reasons.map(reason => reasonJson(part, reason)),
		save_s: save === null ? null : {p50: save.p50, max: save.max, samples: save.samples, slowest: save.slowest},
		lead_s: readiness.leadS,
		lead_from: readiness.leadFrom,
		// The monitor's work since the last save: none before launch.
		work_at_risk_s: null,
		handlers: null,
		handlers_note: handlersNote(part),
		batch_script: part.batchScript,
		directive: directive === null ? null : {text: directive.text, line: directive.line},
		launcher: launcher === null ? null : {name: launcher.facts.name, line: launcher.line, command: launcher.text},
		run_dir: part.runDir,
	};
}

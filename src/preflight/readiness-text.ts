import type {ReadinessReason} from '../core/readiness-types.js';
import {exactSpan, formatDuration} from '../format/duration.js';
import type {ReadinessPart} from './readiness.js';
import {handlersNote, reasonText} from './readiness-words.js';

// The readiness section of preflight's text: the verdict with the reason that decides it on one line (the script's
// directive, then "but saves in runs/exp1 took up to 95 s"), the other reasons below, and where the ranks' handlers
// are read, since preflight cannot.

/** The reason the verdict comes from: the first that pushes toward it; null for ready (no single one decides). */
function deciding(part: ReadinessPart): ReadinessReason | null {
	const {verdict, reasons} = part.readiness;
	if (verdict === 'ready') return null;
	return reasons.find(reason => reason.effect === verdict) ?? null;
}

/** `ready: saves took up to 3.1 s; SIGTERM comes 60 s before the kill`: the two figures that make it so. */
function readySummary(part: ReadinessPart): string {
	const {saveS, leadS, signal} = part.readiness;
	const saves = saveS === null ? '' : `saves took up to ${formatDuration(saveS.max)}; `;
	return `${saves}${signal} leaves ${exactSpan(leadS ?? 0)} to save`;
}

export function readinessHead(part: ReadinessPart): string {
	const {verdict} = part.readiness;
	const reason = deciding(part);
	return `${verdict}: ${reason === null ? readySummary(part) : reasonText(part, reason)}`;
}

export function readinessItems(part: ReadinessPart): string[] {
	const head = deciding(part);
	return [
		...part.readiness.reasons.filter(reason => reason !== head).map(reason => reasonText(part, reason)),
		handlersNote(part),
	];
}

import type {CadenceCase, DeadlineRisk} from '../core/deadline-risk.js';
import {formatAge, formatDuration} from './duration.js';

// The deadline's risk (core/deadline-risk.ts) in words: `time limit in 20 min; at the usual 10 min cadence the last
// save lands 4 min before the end — up to 4 min of work lost; the SIGUSR1 warning comes 1 m 30 s before the end`.

function cadenceText(c: CadenceCase, r: DeadlineRisk): string {
	const lost = formatAge(r.workAtRiskS ?? 0);
	const every = formatAge(r.intervalS ?? 0);
	const age = formatAge(r.lastSaveAgeS ?? 0);
	switch (c) {
		case 'none':
			return 'no save seen yet — all the work is at risk';
		case 'no-cadence':
			return `no save cadence yet; the last save was ${age} ago — up to ${lost} of work lost if none comes`;
		case 'unknown-phase':
			return `at the usual ${every} cadence up to ${every} of work lost`;
		case 'overdue':
			return `the last save was ${age} ago, overdue at the usual ${every} cadence — up to ${lost} of work lost if none comes`;
		case 'none-before-end':
			return `at the usual ${every} cadence no save comes before the end; the last was ${age} ago — up to ${lost} of work lost`;
		case 'last-before-end':
			return `at the usual ${every} cadence the last save lands ${lost} before the end — up to ${lost} of work lost`;
	}
}

/**
 * The warning's lead against the last save's duration. Both are exact figures (`--signal=USR1@90` is 90 s, not
 * "2 min"), compared with each other: formatDuration, which keeps the seconds, not formatAge's one rounded unit.
 */
function warningText(r: DeadlineRisk): string {
	const name = r.warningSignal ? `SIG${r.warningSignal.replace(/^SIG/, '')} warning` : 'warning signal';
	if (r.warningLeadS === null) return 'no warning signal before the end is known';
	const text = `the ${name} comes ${formatDuration(r.warningLeadS)} before the end`;
	if (r.saveDurationS === null) return text;
	if (r.leadTooShort) return `${text}, less than the last save took (${formatDuration(r.saveDurationS)})`;
	return `${text}; the last save took ${formatDuration(r.saveDurationS)}`;
}

export function timeAtRiskText(r: DeadlineRisk): string {
	if (r.timeLeftS === null || r.cadence === null) return 'no time limit (UNLIMITED)';
	const head = r.timeLeftS === 0 ? 'time limit reached' : `time limit in ${formatAge(r.timeLeftS)}`;
	return `${head}; ${cadenceText(r.cadence, r)}; ${warningText(r)}`;
}

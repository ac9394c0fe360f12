import type {ReadinessReason} from '../core/readiness-types.js';
import {exactSpan, formatDuration} from '../format/duration.js';
import type {ReadinessPart} from './readiness.js';

// Preflight's words for the readiness reasons, naming what it read: the batch script's directive and line, the
// launcher's command line, the run dir (`#SBATCH --signal=TERM@60` (job.sbatch line 3) but saves in runs/exp1 took up
// to 95 s). The monitor's words (format/readiness.ts) speak of a running job's ranks and its clock instead.

const TRAP_WORDS: Readonly<Record<string, string>> = {
	requeues: 'requeues the job',
	cancels: 'cancels the job',
	ends: 'ends the batch shell (and the job)',
	other: 'runs something that does not pass it on with kill',
};

function bare(signal: string): string {
	return signal.replace(/^SIG/, '');
}

/** The script's own directive as written, with its file and line; or what the lead came from. */
function directiveText(part: ReadinessPart): string {
	const d = part.directive;
	if (d !== null) return `\`${d.text}\` (${part.batchScript} line ${d.line})`;
	if (part.readiness.leadFrom === 'grace') return '--grace';
	return 'the lead';
}

function savesIn(part: ReadinessPart): string {
	return part.runDir === null ? 'saves' : `saves in ${part.runDir}`;
}

function launcherText(part: ReadinessPart, reason: ReadinessReason): string {
	const at = part.launcher === null ? '' : ` (${part.batchScript} line ${part.launcher.line})`;
	return `${reason.name}${at}`;
}

/** The lead and where it comes from; when a launcher cuts it, the lead as given and what the launcher leaves of it. */
function leadWords(part: ReadinessPart, reason: ReadinessReason): string {
	const signal = part.readiness.signal;
	const given = part.pathLeadS ?? reason.seconds ?? 0;
	const cut =
		reason.seconds !== undefined && reason.seconds < given
			? `; ${part.launcher?.facts.name} leaves the ranks ${exactSpan(reason.seconds)} of it`
			: '';
	if (reason.name === 'grace') return `--grace gives ${exactSpan(given)} from ${signal} to the kill${cut}`;
	if (reason.name === 'scheduler-warning')
		return `${directiveText(part)}: ${signal} comes ${exactSpan(given)} before the end${cut}`;
	return `${exactSpan(given)} from ${signal} to the kill${cut}`;
}

function noDeadline(part: ReadinessPart): string {
	if (part.batchScript === null) return 'no lead known: give --batch-script FILE, or --grace SECONDS';
	return `no lead known: ${part.batchScript} asks for no warning signal (one given on the submit command line is not seen), and the kill wait after SIGTERM is not read before launch: pass --grace SECONDS`;
}

/** One reason in words, naming the script, its line and the run dir where it is about them. */
export function reasonText(part: ReadinessPart, reason: ReadinessReason): string {
	const signal = reason.signal ?? part.readiness.signal;
	switch (reason.code) {
		case 'batch-shell-only':
			return `${directiveText(part)} sends ${signal} to the batch shell alone, and the script sets no trap for ${bare(signal)} that acts on it: the ranks never get it`;
		case 'shell-trap-no-forward':
			return `${directiveText(part)} sends ${signal} to the batch shell alone, and its trap ${TRAP_WORDS[reason.name ?? 'other'] ?? TRAP_WORDS.other}: the ranks never get it to save`;
		case 'shell-trap-unread':
			return `${directiveText(part)} sends ${signal} to the batch shell alone, and what its trap does was not read`;
		case 'shell-forwards':
			return `${directiveText(part)} sends ${signal} to the batch shell, whose trap passes it on with kill: the ranks get it if the trap names their processes`;
		case 'shell-trap-unreached':
			return `${directiveText(part)} signals the job's tasks, not the batch shell: the script's trap for ${bare(signal)} never runs (B: would send it there)`;
		case 'saves-never-complete':
			return `${savesIn(part)} were started and none completed`;
		case 'save-over-lead':
			return `${directiveText(part)} but ${savesIn(part)} took up to ${formatDuration(reason.seconds ?? 0)} (${reason.name}): over the ${exactSpan(reason.limitS ?? 0)} it leaves`;
		case 'launcher-kills':
			return `${launcherText(part, reason)} passes ${signal} on, then SIGKILLs ranks still running ${exactSpan(reason.seconds ?? 0)} later (${reason.source})`;
		case 'launcher-dies':
			return `${launcherText(part, reason)} has no handler for ${signal} and dies of it (${reason.source})`;
		case 'launcher-exit-code':
			return `${launcherText(part, reason)} exits ${reason.exitCode} when a rank fails, whatever the rank's own code: a script that tests for the rank's (a requeue on 99) never sees it (${reason.source})`;
		case 'no-save-seen':
			return part.runDir === null
				? 'save times unknown: give --run-dir DIR of a previous run'
				: `save times unknown: no complete save with a measurable write time in ${part.runDir}`;
		case 'no-deadline':
			return noDeadline(part);
		case 'save-time':
			return `${savesIn(part)} took ${formatDuration(reason.seconds ?? 0)} (median), up to ${formatDuration(reason.limitS ?? 0)}, over ${reason.count} save${reason.count === 1 ? '' : 's'}`;
		case 'lead':
			return leadWords(part, reason);
		case 'no-handler':
			return `rank ${reason.rank} has no handler for ${signal}`;
		case 'ignored':
			return `rank ${reason.rank} ignores ${signal}`;
		case 'no-ranks':
			return `the ranks' handlers for ${signal} are not read`;
		case 'handlers':
			return `every rank handles ${signal}`;
		case 'work-over-limit':
		case 'work-since-save':
			return 'work since the last save';
	}
}

/** Where the ranks' handlers are read, since preflight cannot read them. */
export function handlersNote(part: ReadinessPart): string {
	return `whether the ranks handle ${part.readiness.signal} is read once they run: \`traintop ranks\` shows it`;
}

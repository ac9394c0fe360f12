import {saveTimes, savesNeverComplete} from '../checkpoints/save-duration.js';
import type {CheckpointIndex} from '../core/checkpoint-types.js';
import {UsageError} from '../core/errors.js';
import {judgeReadiness, type SignalPath} from '../core/readiness.js';
import type {Readiness} from '../core/readiness-types.js';
import {schedulers} from '../scheduler/registry.js';
import {scriptLauncher, type ScriptLauncher} from './script-launcher.js';

// The readiness verdict before launch (core/readiness.ts, as the monitor gives it once the job runs): the signal
// path from the batch script (its scheduler reads its directives and its shell's trap), the launcher from its
// command lines, and the save times from a previous run dir. The ranks' handlers are not knowable before they run,
// so they are left out of the verdict, and the report says where to read them.

/** The emergency signal when nothing names another: what a preemption, a node's shutdown and a cloud's notice send. */
const TERMINATING = 'SIGTERM';

export interface ReadinessPart {
	/** The batch script as given (--batch-script); null: none. */
	readonly batchScript: string | null;
	/** The run dir the save times were read in; null: none given. */
	readonly runDir: string | null;
	/** The script's warning directive as written, and its line; null: it asks for none (or no script). */
	readonly directive: {readonly text: string; readonly line: number} | null;
	/** The launcher its commands start, and the line; null: none the table knows. */
	readonly launcher: {readonly facts: ScriptLauncher; readonly line: number; readonly text: string} | null;
	/** The lead before the launcher's cut (the warning's, --grace's), to say when a launcher cut it. */
	readonly pathLeadS: number | null;
	readonly readiness: Readiness;
}

export interface ReadinessInputs {
	/** The path as given and its text; null: no --batch-script. */
	readonly script: {readonly file: string; readonly text: string} | null;
	/** The previous run's index (--run-dir); null: none given. */
	readonly runDir: {readonly path: string; readonly index: CheckpointIndex} | null;
	/** --grace: the user's lead, first as in the monitor (core/job-readiness.ts signalPath); null: not given. */
	readonly graceS: number | null;
	readonly now: number;
}

type PathRead = {readonly path: SignalPath; readonly directive: ReadinessPart['directive']};

/** The first scheduler that reads the script as its own: its warning and the directive's line. */
function scriptPath(file: string, text: string): PathRead {
	for (const entry of schedulers()) {
		const reading = entry.readBatchScript?.(text) ?? null;
		if (reading === null) continue;
		if (reading.status === 'invalid')
			throw new UsageError(`--batch-script ${file} line ${reading.line}: ${reading.reason}`);
		const warning = reading.warning;
		if (warning === null) break;
		return {
			path: {
				signal: `SIG${warning.signal}`,
				leadS: warning.leadS,
				leadFrom: 'scheduler-warning',
				target: warning.target ?? 'tasks',
				shellTrap: warning.shellTrap ?? null,
			},
			directive: reading.directive,
		};
	}
	// No warning asked for: the scheduler's SIGTERM, then its kill wait, which is not read before launch.
	return {path: {signal: TERMINATING, leadS: null, leadFrom: null, target: 'tasks', shellTrap: null}, directive: null};
}

function pathOf(inputs: ReadinessInputs): PathRead {
	if (inputs.graceS !== null)
		return {
			path: {signal: TERMINATING, leadS: inputs.graceS, leadFrom: 'grace', target: 'tasks', shellTrap: null},
			directive: null,
		};
	if (inputs.script === null)
		return {
			path: {signal: TERMINATING, leadS: null, leadFrom: null, target: 'tasks', shellTrap: null},
			directive: null,
		};
	return scriptPath(inputs.script.file, inputs.script.text);
}

/** The verdict before launch; throws a UsageError naming --batch-script and the line for a directive it cannot read. */
export function readinessBeforeLaunch(inputs: ReadinessInputs): ReadinessPart {
	const {path, directive} = pathOf(inputs);
	const found = inputs.script === null ? null : scriptLauncher(inputs.script.text);
	const index = inputs.runDir?.index ?? null;
	const readiness = judgeReadiness({
		job: null,
		jobId: inputs.script?.file ?? 'preflight',
		path,
		launcher: found === null ? null : {...found.launcher, pid: null},
		saves: saveTimes(index),
		// A previous run's last save says nothing about the work the next run will have at risk.
		lastSaveAt: null,
		savesNeverComplete: savesNeverComplete(index),
		maxWorkAtRiskS: null,
		now: inputs.now,
	});
	return {
		batchScript: inputs.script?.file ?? null,
		runDir: inputs.runDir?.path ?? null,
		directive,
		launcher: found === null ? null : {facts: found.launcher, line: found.line, text: found.text},
		pathLeadS: path.leadS,
		readiness,
	};
}

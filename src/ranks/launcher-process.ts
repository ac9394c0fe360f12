import type {LauncherProcess} from '../core/job-types.js';
import type {ProcStatus} from '../system/procfs.js';
import {signalStates} from './dispositions.js';
import {LAUNCHER_VARIABLES} from './launcher-traps.js';
import type {ProcessFacts} from './process-facts.js';

// A job's launcher as discovery reports it: its identity and command line, and what the launcher table
// (launcher-traps.ts) reads of it: its own signal dispositions (/proc/PID/status, each sample: torch's agent installs
// its handlers once it starts the ranks) and the few variables of its environment its code reads for a signal.

/** Of an environment, only the launcher's variables: the rest of a non-rank's is not kept (discover.ts). */
export function launcherVariables(env: ReadonlyMap<string, string> | null): Map<string, string> {
	const kept = new Map<string, string>();
	for (const name of LAUNCHER_VARIABLES) {
		const value = env?.get(name);
		if (value !== undefined) kept.set(name, value);
	}
	return kept;
}

export function launcherOf(process: ProcessFacts, status: ProcStatus | null): LauncherProcess {
	const variables = Object.fromEntries(launcherVariables(process.env));
	return {
		pid: process.pid,
		startTime: process.startTime,
		cmd: process.argv.join(' '),
		...(status === null ? {} : {signals: signalStates(status)}),
		...(Object.keys(variables).length === 0 ? {} : {variables}),
	};
}

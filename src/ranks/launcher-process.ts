import type {LauncherProcess} from '../core/job-types.js';
import type {ProcReader} from '../system/procfs.js';
import {signalStates} from './dispositions.js';
import {torchReads} from './launcher-code.js';
import {LAUNCHER_VARIABLES} from './launcher-traps.js';
import type {ProcessFacts} from './process-facts.js';

// A job's launcher as discovery reports it: its identity and command line, and what the launcher table
// (launcher-traps.ts) reads of it: its own signal dispositions (/proc/PID/status, each sample: torch's agent installs
// its handlers once it starts the ranks), the few variables of its environment its code reads for a signal, and,
// when one is set, whether its installed code reads it (launcher-code.ts).

/** Of an environment, only the launcher's variables: the rest of a non-rank's is not kept (discover.ts). */
export function launcherVariables(env: ReadonlyMap<string, string> | null): Map<string, string> {
	const kept = new Map<string, string>();
	for (const name of LAUNCHER_VARIABLES) {
		const value = env?.get(name);
		if (value !== undefined) kept.set(name, value);
	}
	return kept;
}

/** Launchers seen, remembered by identity for what is read of them once; bounded. */
const MAX_REMEMBERED = 256;

export class LauncherReader {
	readonly #proc: ProcReader;
	/** What each launcher's code reads, by identity (a launcher's code does not change while it runs). */
	readonly #reads = new Map<string, readonly string[] | null>();

	constructor(proc: ProcReader) {
		this.#proc = proc;
	}

	/** The launcher with its dispositions read now. */
	launcher(process: ProcessFacts): LauncherProcess {
		const {pid, startTime} = process;
		const status = this.#proc.status(pid);
		const variables = Object.fromEntries(launcherVariables(process.env));
		const set = Object.keys(variables);
		const reads = set.length === 0 ? null : this.#readsOf(`${pid}:${startTime}`, pid, set);
		return {
			pid,
			startTime,
			cmd: process.argv.join(' '),
			...(status === null ? {} : {signals: signalStates(status)}),
			...(set.length === 0 ? {} : {variables}),
			...(reads === null ? {} : {reads}),
		};
	}

	#readsOf(identity: string, pid: number, variables: readonly string[]): readonly string[] | null {
		if (!this.#reads.has(identity)) {
			if (this.#reads.size >= MAX_REMEMBERED) this.#reads.clear();
			this.#reads.set(identity, torchReads(this.#proc, pid, variables));
		}
		return this.#reads.get(identity) ?? null;
	}
}

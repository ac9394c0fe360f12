import {constants} from 'node:os';
import {
	processIdentity,
	type DepartedProcess,
	type EndedJob,
	type ExitStatus,
	type Job,
	type LauncherProcess,
} from '../core/types.js';

// A job's life between two samples: which ranks and launchers left (with how they ended, when a zombie
// showed it), which jobs ended. A job whose ranks are gone but whose launcher lives on (torchrun restarting
// its workers) is not over: it stays, with no ranks, until the launcher goes too.

const ENDED_KEPT = 10;

/** A wait status (/proc/PID/stat field 52) as exit code or signal. */
export function decodeWaitStatus(status: number): ExitStatus {
	const signal = status & 0x7f;
	if (signal === 0) return {code: (status >> 8) & 0xff, signal: null};
	const name = Object.entries(constants.signals).find(([, n]) => n === signal)?.[0] ?? `signal ${signal}`;
	return {code: null, signal: name};
}

export class JobTracker {
	#previous: readonly Job[] = [];
	readonly #ended: EndedJob[] = [];
	/** Exit statuses read from zombies, by process identity, until the departure is reported. */
	readonly #exits = new Map<string, ExitStatus>();

	/** A process seen as a zombie: how it ended, for when its departure is reported. */
	noteExit(process: {readonly pid: number; readonly startTime: number}, exit: ExitStatus): void {
		this.#exits.set(processIdentity(process), exit);
	}

	#exitOf(process: {readonly pid: number; readonly startTime: number}): ExitStatus | null {
		const key = processIdentity(process);
		const exit = this.#exits.get(key) ?? null;
		this.#exits.delete(key);
		return exit;
	}

	/**
	 * Compares this sample's jobs with the previous sample's. `launcherAlive` re-reads a launcher whose job has
	 * no ranks left (and notes its exit when it is a zombie).
	 */
	update(
		current: readonly Job[],
		now: number,
		launcherAlive: (launcher: LauncherProcess) => boolean,
	): {jobs: Job[]; departed: DepartedProcess[]; ended: readonly EndedJob[]} {
		const jobs = [...current];
		const departed: DepartedProcess[] = [];
		for (const before of this.#previous) {
			const after = current.find(job => job.id === before.id);
			const left = before.ranks.filter(r => !after?.ranks.some(a => a.pid === r.pid && a.startTime === r.startTime));
			const exits = new Map(left.map(r => [r.pid, this.#exitOf(r)]));
			for (const r of left)
				departed.push({role: 'rank', job: before.id, rank: r.rank, pid: r.pid, exit: exits.get(r.pid) ?? null});
			if (after) continue;
			if (before.launcher && launcherAlive(before.launcher)) {
				jobs.push({...before, ranks: []});
				continue;
			}
			const launcherExit = before.launcher ? this.#exitOf(before.launcher) : null;
			if (before.launcher)
				departed.push({role: 'launcher', job: before.id, rank: null, pid: before.launcher.pid, exit: launcherExit});
			const first = [...left].sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity))[0];
			this.#ended.push({
				id: before.id,
				launcher: before.launcher,
				ranks: before.ranks.length,
				runDir: before.runDir,
				endedAt: now,
				exit: launcherExit ?? (first ? (exits.get(first.pid) ?? null) : null),
			});
		}
		this.#ended.splice(0, Math.max(0, this.#ended.length - ENDED_KEPT));
		// Statuses of processes never reported (a worker's zombie) must not pile up.
		if (this.#exits.size > 256) this.#exits.clear();
		this.#previous = jobs;
		return {jobs, departed, ended: [...this.#ended]};
	}
}

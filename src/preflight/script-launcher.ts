import type {LauncherFacts} from '../core/readiness.js';

// The launcher a batch script starts, from its command lines, before it runs: what that launcher does with a
// preemption's signal (it may cut the lead short) is the same as once it runs (ranks/launcher-traps.ts).

/** A launcher's facts as its code has them; before launch there is no pid, and its disposition is not read. */
export type ScriptLauncher = Omit<LauncherFacts, 'pid' | 'disposition'>;

/**
 * The launcher one command line starts, or null. The one place to switch to ranks/launcher-traps.ts'
 * `launcherFromCommand` (the table of launchers, read from each one's code) once it is there; until then torchrun
 * alone, with the facts launcherFacts gives a running torchrun (recorded under torch 2.11).
 */
function launcherOnLine(line: string): ScriptLauncher | null {
	const torchrun = /(?:^|[\s;&|(/])torchrun(?:\s|$)/.test(line) || /\s-m\s+torch\.distributed\.run(?:\s|$)/.test(line);
	if (!torchrun) return null;
	return {
		name: 'torchrun',
		forwards: ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'],
		killAfterS: 30,
		source: 'torch 2.11 torch/distributed/elastic/multiprocessing/api.py',
		exitCode: 1,
	};
}

/** The first launcher the script's commands start (comments and blank lines passed over), with its line; or null. */
export function scriptLauncher(
	script: string,
): {readonly launcher: ScriptLauncher; readonly line: number; readonly text: string} | null {
	for (const [at, raw] of script.split('\n').entries()) {
		const text = raw.trim();
		if (text === '' || text.startsWith('#')) continue;
		const launcher = launcherOnLine(text);
		if (launcher !== null) return {launcher, line: at + 1, text};
	}
	return null;
}

import {type LauncherTraits, launcherFromCommand} from '../ranks/launcher-traps.js';

// The launcher a batch script starts, from its command lines, before it runs: what that launcher does with a
// preemption's signal (it may cut the lead short) is the same as once it runs (ranks/launcher-traps.ts reads both).

/** A launcher's facts as its code has them; before launch there is no pid, and its dispositions are not read. */
export type ScriptLauncher = LauncherTraits;

/** The first launcher the script's commands start (comments and blank lines passed over), with its line; or null. */
export function scriptLauncher(
	script: string,
): {readonly launcher: ScriptLauncher; readonly line: number; readonly text: string} | null {
	for (const [at, raw] of script.split('\n').entries()) {
		const text = raw.trim();
		if (text === '' || text.startsWith('#')) continue;
		const launcher = launcherFromCommand(text);
		if (launcher !== null) return {launcher, line: at + 1, text};
	}
	return null;
}

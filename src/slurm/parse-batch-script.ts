import type {SlurmWarning} from './types.js';
import {signalName} from './slurm-values.js';

// The job's warning signal, read from its batch script (`scontrol write batch_script J -`). SLURM 22.05 keeps
// --signal in the job record (warn_signal, warn_time) but prints it nowhere: not in `scontrol show job`, not in
// `squeue --json`, not in the job's environment (checked on a real 22.05, see test/fixtures/slurm/README.md).
// So the batch script is the one place to read it, and a --signal given on the sbatch command line (which
// overrides the script's) stays invisible.

/** Said when the script has no --signal: the job may still have one from the sbatch command line. */
export const COMMAND_LINE_SIGNAL_UNKNOWN =
	'no #SBATCH --signal in the batch script; a --signal given on the sbatch command line is not shown by ' +
	'SLURM 22.05 (not in scontrol show job, squeue --json or the job environment)';

/** sbatch(1): "If a sig_num is specified without any sig_time, the default time will be 60 seconds." */
const DEFAULT_LEAD_S = 60;

export type BatchScriptWarning =
	| {readonly kind: 'warning'; readonly warning: SlurmWarning}
	| {readonly kind: 'none'}
	| {readonly kind: 'invalid'; readonly reason: string};

/** `[{R|B}:]SIG[@TIME]` (sbatch(1); src/common/proc_args.c get_signal_opts also takes `RB:`/`BR:`). */
export function parseSignalOption(value: string): BatchScriptWarning {
	// sbatch strips the quotes of a quoted #SBATCH value.
	const unquoted = value.trim().replace(/^(["'])(.*)\1$/, '$2');
	const match = /^(?:([RB]{1,2}):)?([^@]+)(?:@(\d+))?$/i.exec(unquoted);
	const signal = match ? signalName(match[2] ?? '') : null;
	if (!match || signal === null) return {kind: 'invalid', reason: `--signal=${value}: not [{R|B}:]SIG[@TIME]`};
	const leadS = match[3] === undefined ? DEFAULT_LEAD_S : Number(match[3]);
	if (leadS > 65_535) return {kind: 'invalid', reason: `--signal=${value}: TIME must be 0 to 65535 (sbatch(1))`};
	const batchOnly = (match[1] ?? '').toUpperCase().includes('B');
	return {kind: 'warning', warning: {signal, leadS, batchOnly, from: 'batch script'}};
}

/**
 * The --signal of the script's #SBATCH lines. sbatch(1): "sbatch will stop processing further #SBATCH directives
 * once the first non-comment non-whitespace line has been reached"; a later directive overrides an earlier one.
 */
export function batchScriptWarning(script: string): BatchScriptWarning {
	let found: BatchScriptWarning = {kind: 'none'};
	for (const raw of script.split('\n')) {
		const line = raw.trim();
		if (line === '') continue;
		if (!line.startsWith('#')) break;
		const directive = /^#SBATCH\s+--signal(?:=|\s+)(\S+)/.exec(line);
		if (directive) found = parseSignalOption(directive[1] ?? '');
	}
	return found;
}

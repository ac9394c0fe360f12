import type {ShellTrapKind} from '../core/readiness-types.js';
import type {BatchScriptReading} from '../scheduler/entry.js';
import {parseSignalName, signalNumber} from '../ranks/signals.js';
import {parseSignalOption} from './parse-batch-script.js';
import {findTrap} from './signal-trap.js';

// Preflight's reading of a batch script before sbatch: the `#SBATCH --signal` it asks for (its signal, lead and
// `B:` target) and what the batch shell's `trap` for that signal does, as the readiness verdict weighs them
// (core/readiness.ts `SignalPath`). The same rules as the running job's reading (parse-batch-script.ts): the
// directives end at the first command, a later one overrides an earlier one.

/** `#SBATCH --signal=…` or `#SBATCH --signal …`: the value, or null for another line. */
function signalDirective(line: string): string | null {
	const directive = /^#SBATCH\s+--signal(?:=|\s+)(\S+)/.exec(line);
	return directive ? (directive[1] ?? '') : null;
}

/** `name() {` … `}` or `function name {` … `}`: the body of a shell function the script defines, or null. */
function functionBody(script: string, name: string): string | null {
	const lines = script.split('\n');
	const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	const head = new RegExp(`^\\s*(?:function\\s+)?${escaped}\\s*(?:\\(\\s*\\))?\\s*\\{?\\s*$`);
	const start = lines.findIndex(line => head.test(line));
	if (start < 0) return null;
	const end = lines.findIndex((line, at) => at > start && /^\s*\}\s*$/.test(line));
	return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/**
 * What a trap's command does to the job (a function the script defines is read for its body). Requeue and cancel
 * first: they end the steps whatever else the trap runs; then a `kill` other than SIGKILL passes the signal on, even
 * when the trap exits after it (the common `kill -TERM "$pid"; wait "$pid"; exit`); an `exit` alone ends the shell.
 */
export function shellTrapKind(script: string, command: string): ShellTrapKind {
	const trimmed = command.trim();
	if (trimmed === '' || trimmed === '-') return 'ignores';
	const body = /^[A-Za-z_][\w-]*$/.test(trimmed) ? (functionBody(script, trimmed) ?? trimmed) : trimmed;
	if (/\bscontrol\s+requeue/.test(body)) return 'requeues';
	if (/\bscancel\b/.test(body)) return 'cancels';
	if (/\bkill\b(?![^;&|\n]*\s-(?:9|KILL|SIGKILL|s\s+(?:SIG)?KILL)\b)/.test(body)) return 'forwards';
	if (/\bexit\b/.test(body)) return 'ends';
	return 'other';
}

/** The script's --signal and its batch shell's trap for it; null when it has no #SBATCH directive. */
export function readSlurmBatchScript(script: string): BatchScriptReading | null {
	let directives = 0;
	let found: {readonly value: string; readonly line: number; readonly text: string} | null = null;
	const lines = script.split('\n');
	for (const [at, raw] of lines.entries()) {
		const line = raw.trim();
		if (line === '') continue;
		if (!line.startsWith('#')) break;
		if (line.startsWith('#SBATCH')) directives++;
		const value = signalDirective(line);
		if (value !== null) found = {value, line: at + 1, text: line};
	}
	if (directives === 0) return null;
	if (found === null) return {status: 'read', warning: null, directive: null};
	const option = parseSignalOption(found.value);
	if (option.kind === 'invalid') return {status: 'invalid', line: found.line, reason: option.reason};
	if (option.kind === 'none') return {status: 'read', warning: null, directive: null};
	const {warning} = option;
	// sbatch refuses a signal it does not know; so does this reading, rather than judge a path that never runs.
	const name = parseSignalName(warning.signal);
	if (name === null)
		return {status: 'invalid', line: found.line, reason: `--signal=${found.value}: ${warning.signal} is not a signal`};
	const trap = findTrap(script, name, signalNumber(name));
	return {
		status: 'read',
		warning: {
			signal: warning.signal,
			leadS: warning.leadS,
			target: warning.batchOnly ? 'batch-shell' : 'tasks',
			shellTrap: trap === null ? 'none' : shellTrapKind(script, trap.command),
		},
		directive: {text: found.text, line: found.line},
	};
}

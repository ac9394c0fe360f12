import {constants} from 'node:os';
import type {ExitStatus} from '../core/types.js';

// SLURM's spellings of durations, times, signals and exits, as its client commands print them. Pure.

/**
 * `[days-]hours:minutes:seconds`, `minutes:seconds` or `minutes` (slurm_time_str / time_str2secs in
 * src/common/parse_time.c) → seconds; null for UNLIMITED, INFINITE, N/A, Unknown, Partition_Limit or nonsense.
 */
export function durationSeconds(text: string): number | null {
	const match = /^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$/.exec(text.trim());
	if (!match) return null;
	const days = Number(match[1] ?? 0);
	const parts = [match[2], match[3], match[4]].filter((part): part is string => part !== undefined).map(Number);
	// With a day prefix the first field is hours (d-h, d-h:m, d-h:m:s); without it: m, m:s, h:m:s.
	let seconds: number;
	if (match[1] !== undefined) {
		const [hours = 0, minutes = 0, secs = 0] = parts;
		seconds = hours * 3600 + minutes * 60 + secs;
	} else if (parts.length === 3) seconds = parts[0]! * 3600 + parts[1]! * 60 + parts[2]!;
	else if (parts.length === 2) seconds = parts[0]! * 60 + parts[1]!;
	else seconds = parts[0]! * 60;
	return days * 86_400 + seconds;
}

/**
 * scontrol's `2026-11-24T08:47:08` (local time, no zone: slurm_make_time_str with the default ISO8601 format) →
 * epoch ms; null for Unknown, None, N/A. JavaScript reads a zone-less ISO date-time as local time too.
 */
export function scontrolTime(text: string): number | null {
	if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(text)) return null;
	const ms = new Date(text).getTime();
	return Number.isFinite(ms) ? ms : null;
}

// Linux signal numbers (signal(7), x86 and arm): sbatch accepts `--signal=10` as well as `USR1` or `SIGUSR1`.
const SIGNAL_NAMES: Record<string, string> = {
	1: 'HUP',
	2: 'INT',
	3: 'QUIT',
	6: 'ABRT',
	9: 'KILL',
	10: 'USR1',
	12: 'USR2',
	14: 'ALRM',
	15: 'TERM',
	18: 'CONT',
	19: 'STOP',
	20: 'TSTP',
	23: 'URG',
	24: 'XCPU',
	26: 'VTALRM',
	28: 'WINCH',
};

/** '10', 'usr1', 'SIGUSR1' → 'USR1'; null when it is no signal SLURM would accept. */
export function signalName(text: string): string | null {
	const trimmed = text.trim();
	if (/^\d+$/.test(trimmed)) return SIGNAL_NAMES[trimmed] ?? null;
	const name = trimmed.toUpperCase().replace(/^SIG/, '');
	return /^[A-Z][A-Z0-9]*$/.test(name) ? name : null;
}

/** Time left of a running job: limit minus elapsed, never below 0; null when unlimited or not running. */
export function timeLeftSeconds(state: string, timeLimitS: number | null, elapsedS: number | null): number | null {
	if (state !== 'RUNNING' || timeLimitS === null || elapsedS === null) return null;
	return Math.max(0, timeLimitS - elapsedS);
}

/** The states a job does not leave (squeue(1) JOB STATE CODES): its ExitCode is how it ended. */
const ENDED_STATES = new Set([
	'COMPLETED',
	'FAILED',
	'CANCELLED',
	'TIMEOUT',
	'PREEMPTED',
	'NODE_FAIL',
	'OUT_OF_MEMORY',
	'BOOT_FAIL',
	'DEADLINE',
]);

export function isEndedState(state: string): boolean {
	return ENDED_STATES.has(state);
}

function signalByNumber(signal: number): string {
	return Object.entries(constants.signals).find(([, n]) => n === signal)?.[0] ?? `signal ${signal}`;
}

/**
 * An ended job's exit from its two numbers, SLURM's `ExitCode=CODE:SIGNAL` (the batch script's exit code, or the
 * signal that killed it); null for a job that has not ended, whose ExitCode is a placeholder 0:0.
 */
export function slurmExit(state: string, code: number | null, signal: number | null): ExitStatus | null {
	if (!isEndedState(state) || code === null) return null;
	if (signal !== null && signal > 0) return {code: null, signal: signalByNumber(signal)};
	return {code, signal: null};
}

/** scontrol's `ExitCode=99:0` → [99, 0]; nulls when it is not that shape. */
export function scontrolExitCode(text: string): [number | null, number | null] {
	const match = /^(\d+):(\d+)$/.exec(text.trim());
	return match ? [Number(match[1]), Number(match[2])] : [null, null];
}

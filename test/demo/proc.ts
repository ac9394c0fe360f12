// Test-side /proc readers for the demo job's tests (Linux): environ, stat, status masks, children, liveness.
// Waiting for a condition is test/helpers/until.ts's job.

import {readdirSync, readFileSync, readlinkSync} from 'node:fs';

export function readEnviron(pid: number): Map<string, string> {
	const env = new Map<string, string>();
	for (const entry of readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')) {
		const eq = entry.indexOf('=');
		if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
	}
	return env;
}

export interface Stat {
	readonly comm: string;
	readonly state: string;
	readonly ppid: number;
	readonly pgrp: number;
	readonly session: number;
	readonly startTime: string;
}

export function readStat(pid: number): Stat | null {
	let text: string;
	try {
		text = readFileSync(`/proc/${pid}/stat`, 'utf8');
	} catch {
		return null;
	}
	const close = text.lastIndexOf(')');
	const comm = text.slice(text.indexOf('(') + 1, close);
	// Fields from 3 (state) on: state ppid pgrp session … starttime is field 22.
	const rest = text.slice(close + 2).split(' ');
	return {
		comm,
		state: rest[0] ?? '?',
		ppid: Number(rest[1]),
		pgrp: Number(rest[2]),
		session: Number(rest[3]),
		startTime: rest[19] ?? '',
	};
}

export function readCmdline(pid: number): string[] {
	return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
		.split('\0')
		.filter(arg => arg !== '');
}

export function readCwd(pid: number): string {
	return readlinkSync(`/proc/${pid}/cwd`);
}

function statusField(pid: number, field: string): string {
	const line = readFileSync(`/proc/${pid}/status`, 'utf8')
		.split('\n')
		.find(l => l.startsWith(`${field}:`));
	if (line === undefined) throw new Error(`/proc/${pid}/status has no ${field}`);
	return line.slice(field.length + 1).trim();
}

/** Bit (signal − 1) of a status mask such as SigCgt. */
export function maskHas(pid: number, field: 'SigCgt' | 'SigIgn' | 'SigBlk', signal: number): boolean {
	const mask = BigInt(`0x${statusField(pid, field)}`);
	return ((mask >> BigInt(signal - 1)) & 1n) === 1n;
}

export function vmRssKiB(pid: number): number {
	return Number.parseInt(statusField(pid, 'VmRSS'), 10);
}

export function childrenOf(pid: number): number[] {
	const children: number[] = [];
	for (const name of readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		const stat = readStat(Number(name));
		if (stat !== null && stat.ppid === pid) children.push(Number(name));
	}
	return children.sort((a, b) => a - b);
}

/** A process as first seen: pid plus start time, so a reused pid never counts as the same process. */
export interface Seen {
	readonly pid: number;
	readonly startTime: string;
}

export function see(pid: number): Seen {
	const stat = readStat(pid);
	if (stat === null) throw new Error(`process ${pid} is not running`);
	return {pid, startTime: stat.startTime};
}

/** True while the process is there and not a zombie (an exited child whose parent has not reaped it yet). */
export function isRunning(proc: Seen): boolean {
	const stat = readStat(proc.pid);
	return stat !== null && stat.startTime === proc.startTime && stat.state !== 'Z' && stat.state !== 'X';
}

import {readdirSync, readFileSync, readlinkSync, statSync} from 'node:fs';
import path from 'node:path';

// /proc/PID/{stat,status,environ,cmdline}: pure parsers over the text, and a thin reader that can be
// pointed at another root (a fixture tree in tests). Linux only; every read may fail (the process
// exited, or belongs to another user), and a failed read is null, never an exception.

export interface ProcStat {
	readonly pid: number;
	/**
	 * The kernel's 15-character thread name. Renamed by some torch versions (pt_data_worker), so it never makes a
	 * process a rank; it only rules one out (`traintop …` sets its title; a scheduler's step daemon may rewrite its argv).
	 */
	readonly comm: string;
	/** R running, S sleeping, D disk sleep, Z zombie, T stopped, t traced, I idle, X dead. */
	readonly state: string;
	readonly ppid: number;
	readonly pgrp: number;
	readonly session: number;
	/** User and system CPU time, clock ticks. */
	readonly utime: number;
	readonly stime: number;
	readonly numThreads: number;
	/** Field 22: clock ticks after boot. With the pid, the identity of a process against PID reuse. */
	readonly startTime: number;
	/** Resident pages (field 24). */
	readonly rssPages: number;
	/** Field 52: the wait status a zombie leaves for its parent (code << 8 | signal); null before Linux 3.5. */
	readonly exitCode: number | null;
}

/**
 * Parses /proc/PID/stat. The comm field is in parentheses and may itself hold spaces and ')', so the
 * fields are counted from after the LAST ')'. Returns null for text that is not a stat line.
 */
export function parseStat(text: string): ProcStat | null {
	const open = text.indexOf('(');
	const close = text.lastIndexOf(')');
	if (open < 0 || close < open) return null;
	const pid = Number(text.slice(0, open).trim());
	const rest = text
		.slice(close + 2)
		.trim()
		.split(/\s+/);
	// rest[0] is field 3 (state); field N is rest[N - 3].
	const field = (n: number) => Number(rest[n - 3]);
	if (!Number.isInteger(pid) || rest.length < 22) return null;
	const stat: ProcStat = {
		pid,
		comm: text.slice(open + 1, close),
		state: rest[0] ?? '?',
		ppid: field(4),
		pgrp: field(5),
		session: field(6),
		utime: field(14),
		stime: field(15),
		numThreads: field(20),
		startTime: field(22),
		rssPages: field(24),
		exitCode: rest.length >= 50 && Number.isInteger(field(52)) ? field(52) : null,
	};
	return Number.isFinite(stat.startTime) && Number.isFinite(stat.ppid) ? stat : null;
}

export interface ProcStatus {
	readonly name: string;
	/** Real and effective uid. */
	readonly uid: {readonly real: number; readonly effective: number};
	/** Signal masks, bit N−1 = signal N (64 bits, hence bigint). */
	readonly sigPnd: bigint;
	readonly shdPnd: bigint;
	readonly sigBlk: bigint;
	readonly sigIgn: bigint;
	readonly sigCgt: bigint;
	/** null for kernel threads and zombies, which have no memory. */
	readonly vmRssBytes: number | null;
}

function hexMask(value: string | undefined): bigint {
	return value && /^[0-9a-f]+$/i.test(value) ? BigInt(`0x${value}`) : 0n;
}

/** Parses /proc/PID/status ("Key:\tvalue" lines). Returns null if the uid line is missing. */
export function parseStatus(text: string): ProcStatus | null {
	const fields = new Map<string, string>();
	for (const line of text.split('\n')) {
		const colon = line.indexOf(':');
		if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
	}
	const uids = fields.get('Uid')?.split(/\s+/).map(Number);
	if (!uids || uids.length < 2 || uids.some(n => !Number.isInteger(n))) return null;
	const rss = /^(\d+)\s*kB$/.exec(fields.get('VmRSS') ?? '');
	return {
		name: fields.get('Name') ?? '',
		uid: {real: uids[0]!, effective: uids[1]!},
		sigPnd: hexMask(fields.get('SigPnd')),
		shdPnd: hexMask(fields.get('ShdPnd')),
		sigBlk: hexMask(fields.get('SigBlk')),
		sigIgn: hexMask(fields.get('SigIgn')),
		sigCgt: hexMask(fields.get('SigCgt')),
		vmRssBytes: rss ? Number(rss[1]) * 1024 : null,
	};
}

/** /proc/PID/environ: NUL-separated KEY=value pairs, as the process was exec'd (later changes are invisible). */
export function parseEnviron(text: string): Map<string, string> {
	const env = new Map<string, string>();
	for (const entry of text.split('\0')) {
		const eq = entry.indexOf('=');
		if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
	}
	return env;
}

/** /proc/PID/cmdline: NUL-separated argv (with a trailing NUL); empty for kernel threads and zombies. */
export function parseCmdline(text: string): string[] {
	const argv = text.split('\0');
	if (argv.at(-1) === '') argv.pop();
	return argv;
}

/**
 * Raw access to /proc: every method returns null when the entry cannot be read. Synchronous on
 * purpose (see readOrNull): /proc never waits on a disk, and a scan of hundreds of entries through
 * promises cost more in allocation than in reading.
 */
export interface ProcReader {
	listPids(): number[];
	/** The real uid owning the process (of its /proc directory); cheaper than reading status. */
	owner(pid: number): number | null;
	stat(pid: number): ProcStat | null;
	status(pid: number): ProcStatus | null;
	environ(pid: number): Map<string, string> | null;
	cmdline(pid: number): string[] | null;
	/** The working directory (where relative checkpoint paths of a job point); null when unreadable. */
	cwd(pid: number): string | null;
	/** The paths of its open file descriptors (/proc/PID/fd links; sockets and pipes as the kernel names them). */
	openFiles(pid: number): string[] | null;
	/** /proc/PID/cgroup's text: a scheduler task's step (ranks/job-proof.ts). Optional: readers over fixtures may lack it. */
	cgroup?(pid: number): string | null;
	/**
	 * Another file under /proc/PID: `maps`, or `root/…`, a file as the process sees it (its mount namespace): a
	 * launcher's installed code (ranks/launcher-code.ts). Optional, as cgroup; null when unreadable or `..` is in it.
	 */
	file?(pid: number, name: string): string | null;
	/** The thread ids of a process (/proc/PID/task); null when unreadable. Optional, as cgroup. */
	tasks?(pid: number): number[] | null;
}

/**
 * /proc files are generated in memory by the kernel: a synchronous read takes microseconds and never
 * waits on a disk, while fs.promises.readFile costs several thread-pool round trips per file — a rank
 * scan of a few hundred processes measured 5× traintop's whole CPU budget that way.
 */
function readOrNull(file: string): string | null {
	try {
		return readFileSync(file, 'utf8');
	} catch {
		// ENOENT: exited between listing and reading; EACCES: another user's environ. Both mean "skip".
		return null;
	}
}

/** A ProcReader over a /proc-shaped tree: the real /proc by default. */
export function procReader(root = '/proc'): ProcReader {
	const read = (pid: number, name: string) => readOrNull(path.join(root, String(pid), name));
	return {
		listPids() {
			try {
				return readdirSync(root)
					.filter(name => /^\d+$/.test(name))
					.map(Number);
			} catch {
				return [];
			}
		},
		owner(pid) {
			try {
				return statSync(path.join(root, String(pid))).uid;
			} catch {
				return null;
			}
		},
		stat(pid) {
			const text = read(pid, 'stat');
			return text === null ? null : parseStat(text);
		},
		status(pid) {
			const text = read(pid, 'status');
			return text === null ? null : parseStatus(text);
		},
		environ(pid) {
			const text = read(pid, 'environ');
			return text === null ? null : parseEnviron(text);
		},
		cwd(pid) {
			try {
				return readlinkSync(path.join(root, String(pid), 'cwd'));
			} catch {
				return null;
			}
		},
		openFiles(pid) {
			const dir = path.join(root, String(pid), 'fd');
			try {
				return readdirSync(dir).flatMap(fd => {
					try {
						return [readlinkSync(path.join(dir, fd))];
					} catch {
						return []; // closed between listing and reading
					}
				});
			} catch {
				return null;
			}
		},
		cmdline(pid) {
			const text = read(pid, 'cmdline');
			return text === null ? null : parseCmdline(text);
		},
		cgroup(pid) {
			return read(pid, 'cgroup');
		},
		file(pid, name) {
			return name.split('/').includes('..') ? null : read(pid, name);
		},
		tasks(pid) {
			try {
				return readdirSync(path.join(root, String(pid), 'task'))
					.filter(name => /^\d+$/.test(name))
					.map(Number);
			} catch {
				return null;
			}
		},
	};
}

import type {RankProcess} from '../core/types.js';
import type {ProcReader} from '../system/procfs.js';
import {type KernelView, readKernelView, sampleThreads} from './kernel-view.js';
import {dumpPython, findPySpy, type PySpyDump, type PyThread, pySpyVersion} from './py-spy.js';

// Where each process of one job is: its ranks and their DataLoader workers, and nothing else (the same targeting as
// a signal: the caller picked the job; a worker counts only while it is still a descendant of its rank). Each is
// read from /proc (kernel-view.ts) and, where py-spy is given, by py-spy (py-spy.ts), each identity (pid and start
// time) checked right before it is read. Nothing here signals, and py-spy never pauses a process (--nonblocking).

export interface StackTarget {
	readonly role: 'rank' | 'worker';
	/** The rank, or the rank a worker works for; null for a --match process without one. */
	readonly rank: number | null;
	readonly pid: number;
	readonly startTime: number;
	/** A worker's rank's pid; null for a rank. */
	readonly of: number | null;
}

export interface ProcessStacks extends StackTarget {
	/** How its Python frames were read: py-spy, or not at all (the kernel's view only). */
	readonly method: 'py-spy' | 'kernel';
	/** The kernel's view; null when the process was gone. */
	readonly kernel: KernelView | null;
	/** py-spy's threads; null without py-spy or when it failed. */
	readonly python: readonly PyThread[] | null;
	/** Why py-spy gave no stack (its own words), and what it printed when that was not its JSON. */
	readonly pySpyProblem: string | null;
	readonly pySpyOutput: string | null;
	/** How long py-spy took, ms; null where it did not run. */
	readonly pySpyMs: number | null;
	/** The pid no longer held the process named when it was to be read: nothing was read. */
	readonly gone: boolean;
}

/** How many parents up a worker may be from its rank (a worker's own worker, a shell between). */
const WORKER_DEPTH = 8;

/** Whether `pid` is a descendant of `ancestor` now (its parents followed through /proc). */
function descends(proc: ProcReader, pid: number, ancestor: number): boolean {
	let at = pid;
	for (let depth = 0; depth < WORKER_DEPTH; depth++) {
		const parent = proc.stat(at)?.ppid;
		if (parent === undefined || parent <= 1) return false;
		if (parent === ancestor) return true;
		at = parent;
	}
	return false;
}

/** The ranks, each followed by those of its workers that are still its descendants (with their start times now). */
function stackTargets(ranks: readonly RankProcess[], proc: ProcReader): StackTarget[] {
	return ranks.flatMap(rank => {
		const own: StackTarget = {role: 'rank', rank: rank.rank, pid: rank.pid, startTime: rank.startTime, of: null};
		const workers = rank.workers.flatMap(pid => {
			const stat = proc.stat(pid);
			if (stat === null || !descends(proc, pid, rank.pid)) return [];
			return [{role: 'worker' as const, rank: rank.rank, pid, startTime: stat.startTime, of: rank.pid}];
		});
		return [own, ...workers];
	});
}

export interface StacksOptions {
	readonly proc: ProcReader;
	/** py-spy's path; null: the kernel's view only. */
	readonly pySpy: string | null;
	/** The span of the two thread reads that give each thread's CPU share, ms. */
	readonly intervalMs?: number;
	readonly timeoutMs?: number;
}

const isTarget = (proc: ProcReader, target: StackTarget): boolean =>
	proc.stat(target.pid)?.startTime === target.startTime;

/** Each target read: py-spy one after the other (never two at once on a job), the kernel's view of each after it. */
async function readStacks(targets: readonly StackTarget[], options: StacksOptions): Promise<ProcessStacks[]> {
	const {proc, pySpy, intervalMs = 200} = options;
	const started = performance.now();
	const before = new Map(targets.map(t => [t.pid, isTarget(proc, t) ? sampleThreads(proc, t.pid) : null]));
	const dumps: (PySpyDump | null)[] = [];
	for (const target of targets)
		dumps.push(pySpy === null ? null : await dumpPython(pySpy, target, proc, options.timeoutMs));
	const left = intervalMs - (performance.now() - started);
	if (left > 0) await new Promise(resolve => setTimeout(resolve, left));
	const elapsed = performance.now() - started;
	return targets.map((target, index) => {
		const dump = dumps[index] ?? null;
		const kernel = isTarget(proc, target)
			? readKernelView(proc, target.pid, before.get(target.pid) ?? null, elapsed)
			: null;
		return {
			...target,
			method: pySpy === null ? 'kernel' : 'py-spy',
			kernel,
			python: dump?.kind === 'threads' ? dump.threads : null,
			pySpyProblem: dump?.kind === 'failed' ? dump.problem : null,
			pySpyOutput: dump?.kind === 'failed' ? dump.output : null,
			pySpyMs: dump !== null && dump.kind !== 'gone' ? dump.ms : null,
			gone: kernel === null || dump?.kind === 'gone',
		};
	});
}

/** The py-spy that read the frames: its path and `py-spy --version`'s words. */
export interface PySpyUsed {
	readonly path: string;
	readonly version: string | null;
}

export interface WhereRead {
	readonly pySpy: PySpyUsed | null;
	readonly processes: readonly ProcessStacks[];
}

/** Where `ranks` and their workers are: py-spy when it is on PATH (which one, said), the kernel's view always. */
export async function whereAre(ranks: readonly RankProcess[], proc: ProcReader): Promise<WhereRead> {
	const path = findPySpy();
	const pySpy = path === null ? null : {path, version: await pySpyVersion(path)};
	return {pySpy, processes: await readStacks(stackTargets(ranks, proc), {proc, pySpy: path})};
}

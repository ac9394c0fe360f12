import {readFile} from 'node:fs/promises';
import type {CgroupMemoryReading} from '../core/types.js';
import {
	cgroupAncestors,
	type MemoryCgroupLocation,
	memoryCgroupLocation,
	memoryStatValue,
	parseCgroupMounts,
	parseMemoryLimit,
	parseMemoryUsage,
	parseProcCgroup,
} from './cgroup-parse.js';

// The memory limit the ranks run under. Under a batch scheduler's cgroup confinement (and in containers) the
// kernel's OOM killer acts when the job's cgroup reaches its limit, however much RAM the host has left.
//
// Usage is counted as `docker stats` counts it (docker/cli cli/command/container/stats_helpers.go,
// calculateMemUsageUnixNoCache): the charged memory (v2 memory.current, v1 memory.usage_in_bytes) less the
// inactive file cache (v2 memory.stat `inactive_file`, v1 `total_inactive_file`, hierarchical like the usage).
// The kernel charges page cache to the cgroup but reclaims inactive file pages before it invokes the OOM killer
// (mm/memcontrol.c try_charge → try_to_free_mem_cgroup_pages), so that cache is not pressure; the same rule as
// the host gauge's total − available. Both versions are counted alike, so a v1 and a v2 node read the same.

/** Files of the memory controller, per cgroup version (Documentation/admin-guide/cgroup-v1/memory.rst, cgroup-v2.rst). */
const FILES = {
	1: {limit: 'memory.limit_in_bytes', usage: 'memory.usage_in_bytes', inactiveFile: 'total_inactive_file'},
	2: {limit: 'memory.max', usage: 'memory.current', inactiveFile: 'inactive_file'},
} as const;

/** Ranks read at most; a job's ranks share a few cgroups (one per step or task), so more adds nothing. */
const MAX_PIDS = 64;

/** A cgroup on a rank's way up that has a limit. */
interface LimitedCgroup {
	readonly version: 1 | 2;
	readonly dir: string;
	readonly path: string;
	readonly limitBytes: number;
}

export interface CgroupMemoryReaderOptions {
	/** /proc, for tests that point elsewhere. */
	readonly procRoot?: string;
	/** How long the found cgroups and their limits are kept before they are looked for again (default 30 s). */
	readonly refreshMs?: number;
	readonly now?: () => number;
}

/** `/batch/job_5/step_0` less `up` trailing segments: the ancestors' names for the display. */
function ancestorPath(path: string, up: number): string {
	const segments = path.split('/').filter(Boolean);
	return `/${segments.slice(0, Math.max(0, segments.length - up)).join('/')}`;
}

async function readText(file: string): Promise<string> {
	return readFile(file, 'utf8');
}

/**
 * Reads the tightest cgroup memory limit over a set of processes. Finding the cgroups (mountinfo, each
 * /proc/PID/cgroup, every limit up to the mount point) is cached for `refreshMs` or until the processes
 * change; a tick reads only the usage of the cgroups that have a limit (usually one).
 */
export class CgroupMemoryReader {
	readonly #procRoot: string;
	readonly #refreshMs: number;
	readonly #now: () => number;
	#key: string | null = null;
	#foundAt = Number.NEGATIVE_INFINITY;
	#scope: CgroupMemoryReading['scope'] = 'traintop';
	#limited: readonly LimitedCgroup[] = [];

	constructor(options: CgroupMemoryReaderOptions = {}) {
		this.#procRoot = options.procRoot ?? '/proc';
		this.#refreshMs = options.refreshMs ?? 30_000;
		this.#now = options.now ?? Date.now;
	}

	/**
	 * The limit of the ranks' cgroups (`pids`; traintop's own cgroup when empty) with the least room left, or null
	 * when none of them has a limit. Never rejects: a cgroup that cannot be read is no limit known.
	 */
	async read(pids: readonly number[]): Promise<CgroupMemoryReading | null> {
		const unique = [...new Set(pids)].sort((a, b) => a - b).slice(0, MAX_PIDS);
		const key = unique.join(',');
		if (key !== this.#key || this.#now() - this.#foundAt >= this.#refreshMs) {
			this.#key = key;
			this.#foundAt = this.#now();
			await this.#find(unique);
		}
		let tightest: CgroupMemoryReading | null = null;
		for (const cgroup of this.#limited) {
			const usedBytes = await this.#usage(cgroup);
			if (usedBytes === null) {
				// The cgroup went away (the job step ended): look again at the next read.
				this.#foundAt = Number.NEGATIVE_INFINITY;
				continue;
			}
			const reading: CgroupMemoryReading = {
				scope: this.#scope,
				version: cgroup.version,
				path: cgroup.path,
				limitBytes: cgroup.limitBytes,
				usedBytes,
				percent: (usedBytes / cgroup.limitBytes) * 100,
			};
			// Least room first: that cgroup's OOM comes first (a step limit under a looser job limit, or the reverse).
			if (!tightest || reading.limitBytes - usedBytes < tightest.limitBytes - tightest.usedBytes) tightest = reading;
		}
		return tightest;
	}

	async #find(pids: readonly number[]): Promise<void> {
		this.#limited = [];
		const mounts = parseCgroupMounts(await readText(`${this.#procRoot}/self/mountinfo`).catch(() => ''));
		if (mounts.length === 0) return;
		let locations = await this.#locations(pids, mounts);
		this.#scope = 'job';
		if (locations.length === 0) {
			// No ranks (yet), or all gone: traintop's own cgroup, which is the container's when it runs in one.
			locations = await this.#locations([process.pid], mounts);
			this.#scope = 'traintop';
		}
		const seen = new Set<string>();
		const limited: LimitedCgroup[] = [];
		for (const location of locations) {
			const dirs = cgroupAncestors(location);
			for (const [up, dir] of dirs.entries()) {
				if (seen.has(dir)) continue;
				seen.add(dir);
				const limitBytes = await readText(`${dir}/${FILES[location.version].limit}`)
					.then(parseMemoryLimit)
					.catch(() => null);
				if (limitBytes !== null && limitBytes > 0) {
					limited.push({version: location.version, dir, path: ancestorPath(location.path, up), limitBytes});
				}
			}
		}
		this.#limited = limited;
	}

	async #locations(pids: readonly number[], mounts: ReturnType<typeof parseCgroupMounts>) {
		const locations: MemoryCgroupLocation[] = [];
		const dirs = new Set<string>();
		for (const pid of pids) {
			const text = await readText(`${this.#procRoot}/${pid}/cgroup`).catch(() => null);
			const location = text === null ? null : memoryCgroupLocation(parseProcCgroup(text), mounts);
			if (location && !dirs.has(location.dir)) {
				dirs.add(location.dir);
				locations.push(location);
			}
		}
		return locations;
	}

	/** Charged memory less inactive file cache; null when the cgroup cannot be read. */
	async #usage(cgroup: LimitedCgroup): Promise<number | null> {
		const files = FILES[cgroup.version];
		try {
			const [usage, stat] = await Promise.all([
				readText(`${cgroup.dir}/${files.usage}`),
				readText(`${cgroup.dir}/memory.stat`).catch(() => ''),
			]);
			const inactive = memoryStatValue(stat, files.inactiveFile) ?? 0;
			return Math.max(0, parseMemoryUsage(usage) - inactive);
		} catch {
			return null;
		}
	}
}

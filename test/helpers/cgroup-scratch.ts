import {existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {until} from './until.js';

// A real memory cgroup for the tests, made and removed by the test: a "job" cgroup with a limit and a "step"
// cgroup inside it, as SLURM's task/cgroup plugin lays them out. cgroup v1 (a memory hierarchy at
// /sys/fs/cgroup/memory) or v2 (/sys/fs/cgroup with the memory controller); needs root.

const V1 = '/sys/fs/cgroup/memory';
const V2 = '/sys/fs/cgroup';

export interface ScratchCgroup {
	readonly version: 1 | 2;
	/** The job cgroup's path as /proc/PID/cgroup names it (from the hierarchy's root). */
	readonly path: string;
	/** Directory of the job cgroup, or of a child of it. */
	dir(child?: string): string;
	/** Sets a memory limit on the job cgroup or a child; null removes it. */
	limit(bytes: number | null, child?: string): void;
	/** Python lines that move the running process into the child cgroup (run before it allocates). */
	joinScript(child: string): string;
	/** Removes the cgroups once their processes are gone. */
	remove(): Promise<void>;
}

function hierarchy(): {version: 1 | 2; mount: string} | null {
	if (existsSync(`${V1}/memory.limit_in_bytes`)) return {version: 1, mount: V1};
	try {
		const enabled = readFileSync(`${V2}/cgroup.subtree_control`, 'utf8').split(/\s+/);
		if (enabled.includes('memory')) return {version: 2, mount: V2};
	} catch {
		// no v2 hierarchy
	}
	return null;
}

/** Makes `/traintop-test-…` with a `step` child inside; throws with the reason when it cannot. */
export function createScratchCgroup(children: readonly string[] = ['step']): ScratchCgroup {
	const found = hierarchy();
	if (!found) throw new Error(`no writable memory cgroup hierarchy at ${V1} (v1) or ${V2} (v2, memory controller)`);
	const {version, mount} = found;
	const name = `traintop-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
	const top = path.join(mount, name);
	mkdirSync(top);
	// v2 needs the controller handed down before a child can have its own memory.max (cgroup-v2.rst "Top-down").
	if (version === 2) writeFileSync(path.join(top, 'cgroup.subtree_control'), '+memory');
	for (const child of children) mkdirSync(path.join(top, child));
	const limitFile = version === 1 ? 'memory.limit_in_bytes' : 'memory.max';
	const dir = (child?: string) => (child ? path.join(top, child) : top);
	return {
		version,
		path: `/${name}`,
		dir,
		// No limit: v2's word is `max`; v1 takes -1 (Documentation/admin-guide/cgroup-v1/memory.rst).
		limit: (bytes, child) =>
			writeFileSync(path.join(dir(child), limitFile), bytes !== null ? String(bytes) : version === 1 ? '-1' : 'max'),
		joinScript: child => `open(${JSON.stringify(path.join(top, child, 'cgroup.procs'))}, "w").write(str(os.getpid()))`,
		remove: async () => {
			for (const child of [...children, undefined]) {
				const procs = path.join(dir(child), 'cgroup.procs');
				if (!existsSync(procs)) continue;
				// A killed process leaves its cgroup a moment after its exit is reported.
				await until(
					() => readFileSync(procs, 'utf8').trim(),
					text => text === '',
					`${procs} empty`,
				);
				rmdirSync(dir(child));
			}
		},
	};
}

/** Why no scratch cgroup can be made here (not root, no memory hierarchy, read-only), or null when one can. */
export function scratchCgroupUnavailable(): string | null {
	if (process.getuid?.() !== 0) return 'cgroup tests need root (to create a memory cgroup and move a process into it)';
	try {
		const scratch = createScratchCgroup([]);
		scratch.limit(256 * 1024 ** 2);
		rmdirSync(scratch.dir());
		return null;
	} catch (error) {
		return `cannot create a memory cgroup with a limit: ${error instanceof Error ? error.message : String(error)}`;
	}
}

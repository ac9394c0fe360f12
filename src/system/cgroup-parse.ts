// Pure parsers for finding a process's memory cgroup: /proc/PID/cgroup, /proc/self/mountinfo and the
// memory controller's own files. No I/O here; cgroup-memory.ts reads the files.

/** One line of /proc/PID/cgroup: `hierarchy-ID:controller-list:cgroup-path` (proc(5); v2's line is `0::/path`). */
export interface CgroupMembership {
	readonly hierarchyId: number;
	/** v1 controllers of the hierarchy (`memory`, `cpu,cpuacct`, `name=systemd`); empty for the v2 line. */
	readonly controllers: readonly string[];
	/** Relative to the hierarchy's root as the reader's cgroup namespace sees it. */
	readonly path: string;
}

export function parseProcCgroup(text: string): CgroupMembership[] {
	const memberships: CgroupMembership[] = [];
	for (const line of text.split('\n')) {
		// The path may itself hold ':' (a cgroup name may), so only the first two colons separate fields.
		const first = line.indexOf(':');
		const second = first < 0 ? -1 : line.indexOf(':', first + 1);
		if (second < 0) continue;
		const hierarchyId = Number(line.slice(0, first));
		if (!Number.isInteger(hierarchyId)) continue;
		const list = line.slice(first + 1, second);
		memberships.push({hierarchyId, controllers: list === '' ? [] : list.split(','), path: line.slice(second + 1)});
	}
	return memberships;
}

/** A cgroup file system in mountinfo: where it is mounted and which part of the hierarchy that mount shows. */
export interface CgroupMount {
	readonly version: 1 | 2;
	/** Field 4: the hierarchy's directory mounted here (`/` on a host; `/docker/ID` in some containers). */
	readonly root: string;
	/** Field 5. */
	readonly mountPoint: string;
	/** The super options after the fstype and source: v1 names its controllers there (`rw,memory`). */
	readonly superOptions: readonly string[];
}

/** mountinfo escapes space, tab, newline and backslash as `\ooo` octal (proc(5), fs/proc_namespace.c mangle()). */
function unescapeOctal(field: string): string {
	return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/**
 * The cgroup and cgroup2 mounts of /proc/PID/mountinfo. A line is `ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS
 * [OPTIONAL…] - FSTYPE SOURCE SUPEROPTIONS` (proc(5)); the optional fields vary in number, so the ` - ` separator
 * is looked for rather than a fixed column.
 */
export function parseCgroupMounts(text: string): CgroupMount[] {
	const mounts: CgroupMount[] = [];
	for (const line of text.split('\n')) {
		const fields = line.split(' ');
		const separator = fields.indexOf('-', 6);
		if (separator < 0 || fields.length < separator + 4) continue;
		const fsType = fields[separator + 1];
		if (fsType !== 'cgroup' && fsType !== 'cgroup2') continue;
		mounts.push({
			version: fsType === 'cgroup2' ? 2 : 1,
			root: unescapeOctal(fields[3]!),
			mountPoint: unescapeOctal(fields[4]!),
			superOptions: fields[separator + 3]!.split(','),
		});
	}
	return mounts;
}

/** Where a process's memory cgroup lives in the file system. */
export interface MemoryCgroupLocation {
	readonly version: 1 | 2;
	/** The cgroup's directory (`/sys/fs/cgroup/memory/batch/job_5/step_0`). */
	readonly dir: string;
	/** The mount point: the walk up for a tighter limit stops there. */
	readonly mountPoint: string;
	/** As /proc/PID/cgroup names it (`/batch/job_5/step_0`). */
	readonly path: string;
}

/**
 * The directory under `mount` for a cgroup `path`: a mount whose root is a sub-tree (a container that sees
 * only its own cgroup) shows that sub-tree at its mount point. null when the path is outside what the mount
 * shows (a process in another cgroup namespace reads as `/../…`, cgroup_namespaces(7)).
 */
function dirUnder(mount: CgroupMount, path: string): string | null {
	if (path.split('/').includes('..')) return null;
	let relative: string;
	if (mount.root === '/') relative = path;
	else if (path === mount.root || path.startsWith(`${mount.root}/`)) relative = path.slice(mount.root.length);
	else return null;
	const trimmed = relative.replace(/\/+$/, '');
	return trimmed === '' ? mount.mountPoint : `${mount.mountPoint.replace(/\/+$/, '')}${trimmed}`;
}

/**
 * The memory cgroup of a process from its /proc/PID/cgroup and the mounts. A v1 hierarchy with the memory
 * controller wins (on a hybrid host, such as a Debian with systemd's "hybrid" mode, the v2 tree at
 * /sys/fs/cgroup/unified has no memory controller); else the v2 line on a cgroup2 mount, which the reader
 * checks for memory.current (the controller may not be enabled there). null when neither is found.
 */
export function memoryCgroupLocation(
	memberships: readonly CgroupMembership[],
	mounts: readonly CgroupMount[],
): MemoryCgroupLocation | null {
	const v1 = memberships.find(m => m.hierarchyId !== 0 && m.controllers.includes('memory'));
	const v1Mount = mounts.find(m => m.version === 1 && m.superOptions.includes('memory'));
	if (v1 && v1Mount) {
		const dir = dirUnder(v1Mount, v1.path);
		if (dir !== null) return {version: 1, dir, mountPoint: v1Mount.mountPoint, path: v1.path};
	}
	const v2 = memberships.find(m => m.hierarchyId === 0 && m.controllers.length === 0);
	for (const mount of mounts.filter(m => m.version === 2)) {
		const dir = v2 ? dirUnder(mount, v2.path) : null;
		if (v2 && dir !== null) return {version: 2, dir, mountPoint: mount.mountPoint, path: v2.path};
	}
	return null;
}

/** The directories from a cgroup up to its mount point, the cgroup first: where a limit may be set. */
export function cgroupAncestors(location: MemoryCgroupLocation): string[] {
	const dirs: string[] = [];
	const top = location.mountPoint.replace(/\/+$/, '');
	let dir = location.dir.replace(/\/+$/, '');
	for (;;) {
		dirs.push(dir);
		if (dir === top || !dir.startsWith(`${top}/`)) break;
		dir = dir.slice(0, dir.lastIndexOf('/'));
	}
	return dirs;
}

/**
 * A limit file's value in bytes; null for no limit. v2's memory.max reads `max`; v1's memory.limit_in_bytes
 * reads PAGE_COUNTER_MAX × PAGE_SIZE (9223372036854771712 with 4 KiB pages, mm/page_counter.c), so anything
 * from 2^62 on is taken as "no limit" whatever the page size.
 */
export function parseMemoryLimit(text: string): number | null {
	const value = text.trim();
	if (value === 'max') return null;
	if (!/^\d+$/.test(value)) throw new Error(`not a memory limit: '${value.slice(0, 40)}'`);
	const bytes = Number(value);
	return bytes >= 2 ** 62 ? null : bytes;
}

/** A usage file (memory.current, memory.usage_in_bytes): one number of bytes. */
export function parseMemoryUsage(text: string): number {
	const value = text.trim();
	if (!/^\d+$/.test(value)) throw new Error(`not a memory usage: '${value.slice(0, 40)}'`);
	return Number(value);
}

/** One key of memory.stat (`key value` lines); null when it is not there. */
export function memoryStatValue(text: string, key: string): number | null {
	for (const line of text.split('\n')) {
		const space = line.indexOf(' ');
		if (space > 0 && line.slice(0, space) === key) {
			const value = Number(line.slice(space + 1));
			return Number.isFinite(value) ? value : null;
		}
	}
	return null;
}

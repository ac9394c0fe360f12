import {describe, expect, test} from 'vitest';
import {
	cgroupAncestors,
	memoryCgroupLocation,
	memoryStatValue,
	parseCgroupMounts,
	parseMemoryLimit,
	parseMemoryUsage,
	parseProcCgroup,
} from '../../src/system/cgroup-parse.js';

// Recorded lines. "This machine": a hybrid host (v1 controllers, an empty v2 tree at /sys/fs/cgroup/unified), kernel
// 6.18, recorded from /proc/self/cgroup and /proc/self/mountinfo. The v2 lines follow the kernel's
// Documentation/admin-guide/cgroup-v2.rst ("0::/test-cgroup/test-cgroup-nested", the namespace example's "/.."), and a
// systemd host's unified mount; the container lines a Docker cgroup v1 container's view.

const HYBRID_CGROUP = [
	'9:name=systemd:/',
	'8:pids:/',
	'7:blkio:/',
	'6:freezer:/',
	'5:devices:/',
	'4:memory:/process_api/6825873615ef67d66a04c1f71da845b0',
	'3:cpuset:/',
	'2:cpuacct:/',
	'1:cpu:/',
	'0::/',
	'',
].join('\n');

const HYBRID_MOUNTINFO = [
	'27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534',
	'31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
	'32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
	'35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
	'40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd',
	'41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
	'',
].join('\n');

const V2_MOUNTINFO = [
	'24 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro',
	'35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot',
].join('\n');

describe('parseProcCgroup', () => {
	test("this machine's hybrid lines: each v1 hierarchy with its controllers, and v2's empty list", () => {
		const lines = parseProcCgroup(HYBRID_CGROUP);
		expect(lines).toHaveLength(10);
		expect(lines[5]).toEqual({
			hierarchyId: 4,
			controllers: ['memory'],
			path: '/process_api/6825873615ef67d66a04c1f71da845b0',
		});
		expect(lines[0]!.controllers).toEqual(['name=systemd']);
		expect(lines[9]).toEqual({hierarchyId: 0, controllers: [], path: '/'});
	});

	test('a v2 line, co-mounted v1 controllers, and a path holding a colon', () => {
		expect(parseProcCgroup('0::/test-cgroup/test-cgroup-nested\n')).toEqual([
			{hierarchyId: 0, controllers: [], path: '/test-cgroup/test-cgroup-nested'},
		]);
		expect(parseProcCgroup('2:cpu,cpuacct:/slurm/uid_0/job_5:odd')[0]).toEqual({
			hierarchyId: 2,
			controllers: ['cpu', 'cpuacct'],
			path: '/slurm/uid_0/job_5:odd',
		});
	});

	test('lines that are not cgroup lines are skipped', () => {
		expect(parseProcCgroup('garbage\nx:memory:/a\n\n')).toEqual([]);
	});
});

describe('parseCgroupMounts', () => {
	test('this machine: the v1 hierarchies with their controllers, the v2 tree, not the tmpfs or the root fs', () => {
		const mounts = parseCgroupMounts(HYBRID_MOUNTINFO);
		expect(mounts.map(m => `${m.version} ${m.mountPoint}`)).toEqual([
			'1 /sys/fs/cgroup/cpu',
			'1 /sys/fs/cgroup/memory',
			'1 /sys/fs/cgroup/systemd',
			'2 /sys/fs/cgroup/unified',
		]);
		expect(mounts[1]).toEqual({
			version: 1,
			root: '/',
			mountPoint: '/sys/fs/cgroup/memory',
			superOptions: ['rw', 'memory'],
		});
	});

	test("a systemd v2 host's unified mount, with its optional shared: field", () => {
		expect(parseCgroupMounts(V2_MOUNTINFO)).toEqual([
			{version: 2, root: '/', mountPoint: '/sys/fs/cgroup', superOptions: ['rw', 'nsdelegate', 'memory_recursiveprot']},
		]);
	});

	test('octal escapes in the root and mount point are decoded', () => {
		const [mount] = parseCgroupMounts('50 24 0:40 /a\\040b /mnt/cg\\040v1 rw - cgroup cgroup rw,memory');
		expect(mount).toMatchObject({root: '/a b', mountPoint: '/mnt/cg v1'});
	});
});

describe('memoryCgroupLocation', () => {
	test('this machine: the v1 memory hierarchy, not the unified tree that has no memory controller', () => {
		expect(memoryCgroupLocation(parseProcCgroup(HYBRID_CGROUP), parseCgroupMounts(HYBRID_MOUNTINFO))).toEqual({
			version: 1,
			dir: '/sys/fs/cgroup/memory/process_api/6825873615ef67d66a04c1f71da845b0',
			mountPoint: '/sys/fs/cgroup/memory',
			path: '/process_api/6825873615ef67d66a04c1f71da845b0',
		});
	});

	test("a SLURM 22.05 task under task/cgroup (cgroup/v1) on this machine: the task's cgroup, then up to the job", () => {
		// Recorded from rank 0 of `sbatch --ntasks=2 --mem=400M` running `srun python3 …` (slurm-wlm 22.05, this host).
		const task = parseProcCgroup(
			[
				'9:name=systemd:/',
				'6:freezer:/slurm_vm/uid_0/job_1/step_0',
				'4:memory:/slurm_vm/uid_0/job_1/step_0/task_0',
				'1:cpu:/',
				'0::/',
			].join('\n'),
		);
		const location = memoryCgroupLocation(task, parseCgroupMounts(HYBRID_MOUNTINFO))!;
		expect(location.dir).toBe('/sys/fs/cgroup/memory/slurm_vm/uid_0/job_1/step_0/task_0');
		// slurmd set memory.limit_in_bytes 419430400 on job_1 and step_0, none on task_0 (PAGE_COUNTER_MAX there).
		expect(cgroupAncestors(location).slice(0, 3)).toEqual([
			'/sys/fs/cgroup/memory/slurm_vm/uid_0/job_1/step_0/task_0',
			'/sys/fs/cgroup/memory/slurm_vm/uid_0/job_1/step_0',
			'/sys/fs/cgroup/memory/slurm_vm/uid_0/job_1',
		]);
	});

	test('a pure v2 host: the unified line under the cgroup2 mount', () => {
		const lines = parseProcCgroup('0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0\n');
		expect(memoryCgroupLocation(lines, parseCgroupMounts(V2_MOUNTINFO))).toMatchObject({
			version: 2,
			dir: '/sys/fs/cgroup/system.slice/slurmstepd.scope/job_42/step_0/user/task_0',
		});
	});

	test('a container whose mount shows only its own sub-tree: the path under the mount root', () => {
		const id = '1f2e3d4c5b6a';
		const lines = parseProcCgroup(`9:memory:/docker/${id}\n`);
		const mounts = parseCgroupMounts(
			`1311 1302 0:33 /docker/${id} /sys/fs/cgroup/memory ro,nosuid,nodev,noexec,relatime master:15 - cgroup cgroup rw,memory`,
		);
		expect(memoryCgroupLocation(lines, mounts)).toMatchObject({version: 1, dir: '/sys/fs/cgroup/memory'});
		const child = parseProcCgroup(`9:memory:/docker/${id}/inner\n`);
		expect(memoryCgroupLocation(child, mounts)?.dir).toBe('/sys/fs/cgroup/memory/inner');
	});

	test("a process outside the reader's cgroup namespace (`/..`) or outside the mount has no location", () => {
		expect(memoryCgroupLocation(parseProcCgroup('0::/../sub_cgrp_1\n'), parseCgroupMounts(V2_MOUNTINFO))).toBeNull();
		const mounts = parseCgroupMounts('1 2 0:33 /docker/a /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory');
		expect(memoryCgroupLocation(parseProcCgroup('9:memory:/other\n'), mounts)).toBeNull();
		expect(memoryCgroupLocation(parseProcCgroup(HYBRID_CGROUP), [])).toBeNull();
	});
});

test('cgroupAncestors walks from the cgroup up to the mount point and stops there', () => {
	const location = {
		version: 1 as const,
		dir: '/sys/fs/cgroup/memory/slurm/uid_0/job_5/step_0',
		mountPoint: '/sys/fs/cgroup/memory',
		path: '/slurm/uid_0/job_5/step_0',
	};
	expect(cgroupAncestors(location)).toEqual([
		'/sys/fs/cgroup/memory/slurm/uid_0/job_5/step_0',
		'/sys/fs/cgroup/memory/slurm/uid_0/job_5',
		'/sys/fs/cgroup/memory/slurm/uid_0',
		'/sys/fs/cgroup/memory/slurm',
		'/sys/fs/cgroup/memory',
	]);
	expect(cgroupAncestors({...location, dir: '/sys/fs/cgroup/memory', path: '/'})).toEqual(['/sys/fs/cgroup/memory']);
});

describe('limit, usage and memory.stat values', () => {
	test("no limit: v2's `max`, and v1's PAGE_COUNTER_MAX as this machine's root memory.limit_in_bytes reads it", () => {
		expect(parseMemoryLimit('max\n')).toBeNull();
		expect(parseMemoryLimit('9223372036854771712\n')).toBeNull();
		expect(parseMemoryLimit('536870912\n')).toBe(512 * 1024 ** 2);
		expect(() => parseMemoryLimit('lots')).toThrow("not a memory limit: 'lots'");
	});

	test('usage is one number; memory.stat is read by key (v1 total_ keys and v2 keys alike)', () => {
		expect(parseMemoryUsage('217505792\n')).toBe(217505792);
		expect(() => parseMemoryUsage('')).toThrow('not a memory usage');
		// This machine's v1 memory.stat, abridged: the cgroup's own and the hierarchical keys.
		const v1 = 'cache 4096\nrss 216776704\ninactive_file 4096\ntotal_rss 216776704\ntotal_inactive_file 860160\n';
		expect(memoryStatValue(v1, 'total_inactive_file')).toBe(860160);
		expect(memoryStatValue(v1, 'inactive_file')).toBe(4096);
		expect(memoryStatValue('anon 1048576\nfile 8192\ninactive_file 4096\n', 'inactive_file')).toBe(4096);
		expect(memoryStatValue('anon 1\n', 'inactive_file')).toBeNull();
	});
});
